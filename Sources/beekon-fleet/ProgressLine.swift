import BeekonDevice
import FleetDescription
import FleetEngine

/// The compact line `run` prints every few seconds.
enum ProgressLine {
    /// ` | store errors full:12 | fixes lost full:40` (geofence events lost too), or nothing
    /// while the stores have not failed.
    static func storePart(_ metrics: FleetMetrics) -> String {
        func causes(_ counts: [String: Int]) -> String {
            counts.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: " ")
        }
        var text = ""
        for (name, counts) in [
            ("store errors", metrics.storeErrorsByCause), ("fixes lost", metrics.fixesLostByCause),
            ("geofence events lost", metrics.geofenceEventsLostByCause),
        ] where !counts.isEmpty {
            text += " | \(name) \(causes(counts))"
        }
        return text
    }

    /// What ended the run, for the summary line: `Ended by the virtual-time limit (--for 8h).`
    static func ending(_ end: RunEnd) -> String {
        switch end {
        case .stopped: "Stopped."
        case .wallClockLimit(let millis):
            "Ended by the wall-clock limit (--duration \(FleetDuration.text(millis: millis)))."
        case .virtualTimeLimit(let millis):
            "Ended by the virtual-time limit (\(FleetDuration.text(millis: millis)) of virtual time)."
        }
    }

    static func text(_ metrics: FleetMetrics) -> String {
        let states = metrics.devicesByState.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(
            separator: ", ")
        let outcomes = metrics.batchesByOutcome.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(
            separator: " ")
        let refreshes = metrics.refreshesByOutcome.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(
            separator: " ")
        let heard = metrics.latency
        let server = metrics.serverLatency
        return "\(Timestamp.text(unixMillis: metrics.virtualNow)) | devices: \(states) | fixes \(metrics.fixesStored)"
            + " | batches \(outcomes.isEmpty ? "0" : outcomes)"
            + (refreshes.isEmpty ? "" : " | token refreshes \(refreshes)")
            + " | pending \(metrics.fixes.ledger.pending)" + storePart(metrics)
            + (metrics.clockLagDroppedMillis > 0 ? " | clock lag dropped \(metrics.clockLagDroppedMillis) ms" : "")
            // Two clocks: what the devices heard (virtual), what the server took (real).
            + String(
                format: " | heard p50 %.1f p99 %.1f ms virtual | server p50 %.1f p99 %.1f ms real",
                heard.percentile(0.5), heard.percentile(0.99), server.percentile(0.5), server.percentile(0.99))
            + (metrics.pace.progressText.map { " | \($0)" } ?? "")
    }

    /// Logged as a warning when answers took more than half the SDK's timeout once multiplied by
    /// the warp: the devices then hear timeouts a phone would not, and the run measures the warp,
    /// not the server.
    static func slowServerWarning(_ metrics: FleetMetrics, newly: Int, warp: Double) -> String {
        let slowest = metrics.slowestAnswerMillis
        let halfTimeout = Double(UploadRequest.timeoutMillis) / 2
        let fitting = halfTimeout / max(slowest, 1e-9)
        let suggested = max(
            FleetClock.warpRange.lower, fitting >= 1 ? fitting.rounded(.down) : (fitting * 100).rounded(.down) / 100)
        return
            "\(newly) more server answer\(newly == 1 ? "" : "s") took more than half the SDK's "
            + "\(UploadRequest.timeoutMillis / 1000) s timeout in virtual time (the slowest: "
            + String(format: "%.0f ms real, %.1f s virtual at warp %g", slowest, slowest * warp / 1000, warp)
            + "); devices hear timeouts a phone would not. Lower the warp: "
            + String(format: "--warp %g", suggested) + " keeps that answer under \(Int(halfTimeout / 1000)) s."
    }
}
