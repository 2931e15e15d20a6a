import FleetEngine

/// A run's uploads, heard and server latency, timing and the fleet's own doing (not sent, held
/// back, cancelled, warp-timeouts, waits), made here rather than counted by the engine: what
/// every surface that reports fleet health (the report, its summary, CSV and HTML, `/metrics`,
/// `GET /api/v1/stats`) is held to.
package enum FleetHealthExample {
    /// Uploads by outcome, heard latency (virtual ms) and the server's answer time (real ms), for
    /// group 0 or 1.
    package static let uploads: [(outcome: TransferOutcome, group: Int, heard: Double, server: Double?)] = [
        (.status(200), 0, 100, 20), (.status(200), 0, 100, 40), (.status(200), 1, 100, 300),
        (.failed(.timeout), 0, 30_000, nil), (.injectedTimeout, 1, 30_000, nil),
        (.warpTimeout, 1, 30_000, nil), (.warpTimeout, 1, 30_000, nil),
        (.notSent(.connectionCap), 0, 30_000, nil), (.notSent(.connectionCap), 0, 30_000, nil),
        (.notSent(.connectionCap), 1, 30_000, nil),
    ]

    package static func snapshot(deterministic: Bool = true) -> FleetSnapshot {
        var metrics = FleetMetrics()
        metrics.uploadsByGroup = [GroupUploads(), GroupUploads()]
        for upload in uploads {
            metrics.uploads.record(
                upload.outcome, latencyMillis: upload.heard, serverMillis: upload.server, realNanos: 0)
            metrics.latency.record(upload.heard)
            var group = GroupUploads()
            group.byOutcome[upload.outcome, default: UploadStats.Tally()].count += 1
            group.byOutcome[upload.outcome]!.latency.record(upload.heard)
            group.latency.record(upload.heard)
            if let server = upload.server {
                group.byOutcome[upload.outcome]!.serverLatency.record(server)
                group.serverLatency.record(server)
                metrics.serverLatency.record(server)
            }
            metrics.uploadsByGroup[upload.group].merge(group)
        }
        // An answer its device never heard still counts as the server's time.
        metrics.serverLatency.record(900)
        metrics.uploadsByGroup[1].serverLatency.record(900)
        metrics.heldBack = 7
        metrics.connectionWait.record(50)
        metrics.connectionWait.record(120)
        metrics.cancelledOnWire = 4
        metrics.pace.answerWaitSeconds = 3.25
        metrics.pace.behindSeconds = 1.5
        var snapshot = FleetSnapshot()
        snapshot.name = "health"
        snapshot.groups = ["walkers", "drivers"]
        snapshot.deterministic = deterministic
        snapshot.metrics = metrics
        return snapshot
    }
}
