import MicroHTTP

/// Accumulates `IngestStats` under the receiver's lock; fix ages, answer times and clock skews kept in bounded rings.
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
    /// Clock skews, ms (a batch's `sent_at` minus its first arrival), in a ring of `ageCapacity`.
    private(set) var skews: [Int64] = []
    private var nextSkew = 0

    /// Upload bodies' arrival speeds, bytes a second, in a ring of `ageCapacity`.
    private(set) var bodyRates: [Int64] = []
    private var nextBodyRate = 0

    /// An upload's body of `bytes` came over `micros` (0: in one read, no speed to tell).
    mutating func bodyArrived(bytes: Int, overMicros micros: Int64) {
        guard micros > 0, bytes > 0 else { return }
        Self.keep(Int64(bytes) * 1_000_000 / micros, in: &bodyRates, next: &nextBodyRate)
    }

    /// An upload's connection ended before its body did.
    mutating func cutShort(_ request: CutShortRequest) {
        stats.truncatedUploads.count += 1
        stats.truncatedUploads.receivedBytes += request.receivedBytes
        stats.truncatedUploads.declaredBytes += request.declaredBytes ?? request.receivedBytes
    }

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
        Self.keep(micros, in: &answers, next: &nextAnswer)
    }

    /// Keeps `sample` in `ring` (of `ageCapacity`), over its oldest once full; `next` is the oldest's place.
    private static func keep(_ sample: Int64, in ring: inout [Int64], next: inout Int) {
        if ring.count < ageCapacity {
            ring.append(sample)
        } else {
            ring[next] = sample
            next = (next + 1) % ageCapacity
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
        // A retry carries its first sending's `sent_at`: only the first says how skewed the clock is.
        if outcome.newBatch { Self.keep(batch.sentAt - receivedAt, in: &skews, next: &nextSkew) }
        if let before = sdkVersionByInstall.updateValue(batch.sdkVersion, forKey: batch.installID),
            before != batch.sdkVersion
        {
            stats.sdkVersionChanges += 1
        }
        for timestamp in outcome.storedLocationTimestamps {
            if timestamp - receivedAt > IngestStats.futureSlackMillis { stats.fixesFromFuture += 1 }
            Self.keep(receivedAt - timestamp, in: &ages, next: &nextAge)
        }
    }
}
