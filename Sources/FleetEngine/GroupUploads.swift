/// One group's uploads over the run: outcomes with their latency, and the latency of them all.
public struct GroupUploads: Sendable, Codable {
    public var byOutcome: [TransferOutcome: UploadStats.Tally] = [:]
    public var latency = LatencyHistogram()
    /// The server's real time for every upload of the group it answered, heard in time or not.
    public var serverLatency = LatencyHistogram()

    public init() {}

    /// Adds the same group's uploads in another part of the fleet.
    public mutating func merge(_ other: GroupUploads) {
        for (outcome, tally) in other.byOutcome { byOutcome[outcome, default: UploadStats.Tally()].merge(tally) }
        latency.merge(other.latency)
        serverLatency.merge(other.serverLatency)
    }

    package mutating func record(_ outcome: TransferOutcome, latencyMillis: Double, serverMillis: Double?) {
        byOutcome[outcome, default: UploadStats.Tally()].count += 1
        byOutcome[outcome]!.latency.record(latencyMillis)
        if let serverMillis { byOutcome[outcome]!.serverLatency.record(serverMillis) }
        latency.record(latencyMillis)
    }
}
