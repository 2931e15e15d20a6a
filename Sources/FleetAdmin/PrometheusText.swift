import FleetKit

/// `GET /metrics`: the fleet's counters in the Prometheus text format (version 0.0.4).
enum PrometheusText {
    /// Upper bounds of the latency histogram's buckets, seconds.
    static let latencyBounds: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

    static func render(_ snapshot: FleetSnapshot) -> String {
        let metrics = snapshot.metrics
        var text = ""
        func family(_ name: String, _ type: String, _ help: String) {
            text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
        }
        family("beekon_fleet_devices", "gauge", "Devices by tracking state (dead: the app's process is gone).")
        labelled("beekon_fleet_devices", "state", metrics.devicesByState, to: &text)
        family("beekon_fleet_fixes_admitted_total", "counter", "Fixes admitted by the gate and stored.")
        text += "beekon_fleet_fixes_admitted_total \(metrics.fixesStored)\n"
        family("beekon_fleet_fixes_uploaded_total", "counter", "Fixes in batches the ingest server acknowledged.")
        text += "beekon_fleet_fixes_uploaded_total \(metrics.fixesUploaded)\n"
        family("beekon_fleet_store_errors_total", "counter", "Device store failures by cause (full, tooManyOpenFiles, ioError, ...).")
        labelled("beekon_fleet_store_errors_total", "cause", metrics.storeErrorsByCause, to: &text)
        family("beekon_fleet_fixes_lost_total", "counter", "Admitted fixes whose insert failed, by the store error's cause.")
        labelled("beekon_fleet_fixes_lost_total", "cause", metrics.fixesLostByCause, to: &text)
        family("beekon_fleet_geofence_events_lost_total", "counter", "Geofence events whose insert failed, by cause.")
        labelled("beekon_fleet_geofence_events_lost_total", "cause", metrics.geofenceEventsLostByCause, to: &text)
        family("beekon_fleet_pending_fixes", "gauge", "Fixes stored and not yet acknowledged.")
        text += "beekon_fleet_pending_fixes \(metrics.pending)\n"
        family("beekon_fleet_uploads_total", "counter", "Upload POSTs by outcome (status code or network failure).")
        labelled("beekon_fleet_uploads_total", "outcome", metrics.batchesByOutcome, to: &text)
        family("beekon_fleet_upload_latency_seconds", "histogram", "Upload latency, send to answer.")
        let latency = metrics.latency
        for bound in latencyBounds {
            text += "beekon_fleet_upload_latency_seconds_bucket{le=\"\(bound)\"} \(latency.count(atOrBelow: bound * 1000))\n"
        }
        text += "beekon_fleet_upload_latency_seconds_bucket{le=\"+Inf\"} \(latency.count)\n"
        text += "beekon_fleet_upload_latency_seconds_sum \(latency.sum / 1000)\n"
        text += "beekon_fleet_upload_latency_seconds_count \(latency.count)\n"
        family("beekon_fleet_warp", "gauge", "Virtual seconds per real second, as set (virtual time stands still while paused).")
        text += "beekon_fleet_warp \(snapshot.warp)\n"
        return text
    }

    /// One sample per entry of `counts`, labelled `label`, in label order.
    static func labelled(_ name: String, _ label: String, _ counts: [String: Int], to text: inout String) {
        for (value, count) in counts.sorted(by: { $0.key < $1.key }) {
            text += "\(name){\(label)=\"\(escaped(value))\"} \(count)\n"
        }
    }

    /// A label value with `\`, `"` and newlines escaped.
    static func escaped(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }
}
