/// Accumulates `IngestStats` under the receiver's lock; fix ages kept in a bounded ring.
///
/// The ages are samples, not an HdrHistogram as the fleet's latencies are: the percentiles are
/// over the most recent fixes (a histogram cannot forget one), and an age can be negative (a fix
/// is stamped on the fleet's virtual clock, which a warp runs ahead of the receiver's).
struct StatsRecorder {
    /// Fix ages kept for the percentiles: the most recent this many.
    static let ageCapacity = 100_000

    var stats = IngestStats()
    private var sessions: Set<String> = []
    /// Fix ages, ms, in a ring of `ageCapacity`.
    private(set) var ages: [Int64] = []
    private var nextAge = 0
    /// Answer times, µs, in a ring of `ageCapacity`.
    private(set) var answers: [Int64] = []
    private var nextAnswer = 0

    /// The addresses each install's uploads came from (one for nearly all).
    private var addressesByInstall: [String: [String]] = [:]
    /// The `sdk_version` each install's latest stored upload reported.
    private var sdkVersionByInstall: [String: String] = [:]

    /// An upload of `installID` was read from client address `address`.
    mutating func arrived(installID: String, from address: String) {
        guard !address.isEmpty else { return }
        stats.sourceAddresses[address, default: .init()].uploads += 1
        let known = addressesByInstall[installID, default: []]
        guard !known.contains(address) else { return }
        addressesByInstall[installID, default: []].append(address)
        stats.sourceAddresses[address, default: .init()].installs += 1
        if known.count == 1 { stats.installsFromSeveralAddresses += 1 }
    }

    mutating func answered(afterMicros micros: Int64) {
        if answers.count < Self.ageCapacity {
            answers.append(micros)
        } else {
            answers[nextAnswer] = micros
            nextAnswer = (nextAnswer + 1) % Self.ageCapacity
        }
    }

    mutating func answered(_ status: Int) {
        stats.requestsByStatus[status, default: 0] += 1
    }

    mutating func stored(_ batch: IngestBatch, _ outcome: IngestDatabase.Outcome, receivedAt: Int64) {
        if outcome.newBatch { stats.batchesStored += 1 } else { stats.duplicateBatches += 1 }
        stats.fixesStored += outcome.storedLocationTimestamps.count
        stats.duplicateFixes += outcome.duplicateLocations
        stats.geofenceEventsStored += outcome.storedGeofenceEvents
        stats.duplicateGeofenceEvents += outcome.duplicateGeofenceEvents
        stats.fixesInAnotherBatch += outcome.locationsInAnotherBatch
        stats.geofenceEventsInAnotherBatch += outcome.geofenceEventsInAnotherBatch
        if outcome.changedOnRetry { stats.batchesChangedOnRetry += 1 }
        stats.lastSeenByDevice[batch.installID] = max(receivedAt, stats.lastSeenByDevice[batch.installID] ?? .min)
        if sessions.insert(batch.installID + "/" + batch.sessionID).inserted { stats.sessions += 1 }
        if let before = sdkVersionByInstall.updateValue(batch.sdkVersion, forKey: batch.installID),
            before != batch.sdkVersion
        {
            stats.sdkVersionChanges += 1
        }
        for timestamp in outcome.storedLocationTimestamps {
            let age = receivedAt - timestamp
            if ages.count < Self.ageCapacity {
                ages.append(age)
            } else {
                ages[nextAge] = age
                nextAge = (nextAge + 1) % Self.ageCapacity
            }
        }
    }
}
