/// What thresholds and reports read of a run, for the whole fleet or one group.
public struct RunFigures: Sendable {
    /// Upload outcomes with their latency.
    public var uploads: [TransferOutcome: UploadStats.Tally]
    /// Every upload's latency.
    public var latency: LatencyHistogram
    /// The server's real time for every upload it answered.
    public var serverLatency: LatencyHistogram
    public var fixes: FixAccount
    public var realSeconds: Double
    /// The fleet's drains (a group has no drains of its own: faults act across groups).
    public var drains: [FaultDrain]
    public var virtualNow: Int64

    /// The whole fleet's.
    public init(_ metrics: FleetMetrics) {
        uploads = metrics.uploads.overall
        latency = metrics.latency
        serverLatency = metrics.serverLatency
        fixes = metrics.fixes
        realSeconds = metrics.realSeconds
        drains = metrics.drains
        virtualNow = metrics.virtualNow
    }

    /// Group `group`'s (by index); empty figures for a group that has done nothing yet.
    public init(_ metrics: FleetMetrics, group: Int) {
        let uploads = metrics.uploadsByGroup.indices.contains(group) ? metrics.uploadsByGroup[group] : GroupUploads()
        self.uploads = uploads.byOutcome
        latency = uploads.latency
        serverLatency = uploads.serverLatency
        fixes = metrics.fixesByGroup.indices.contains(group) ? metrics.fixesByGroup[group] : FixAccount()
        realSeconds = metrics.realSeconds
        drains = metrics.drains
        virtualNow = metrics.virtualNow
    }
}
