import FleetKit
import Prometheus

/// GET /metrics through swift-prometheus, for comparison with `PrometheusText`: the registry an
/// admin server would hold, brought up to the snapshot at each scrape (gauges set, counters reset
/// and incremented to the snapshot's value). Its histograms cannot be built from a snapshot (no
/// way to set bucket counts or a sum), so they are live: recorded where each upload ends.
final class RegistryMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    let latency: ValueHistogram
    let serverLatency: ValueHistogram

    init() {
        let bounds = LatencyHistogram.exactBoundsMillis.map { $0 / 1000 }
        latency = registry.makeValueHistogram(
            descriptor: Self.name(
                "beekon_fleet_upload_latency_seconds",
                "Upload latency as the devices lived it: virtual time from send to the outcome heard (injected latency and timeouts included)."
            ), buckets: bounds)
        serverLatency = registry.makeValueHistogram(
            descriptor: Self.name(
                "beekon_fleet_upload_server_latency_seconds",
                "How long the server took to answer uploads and token refreshes, wall-clock time, in time for the device or not."
            ), buckets: bounds)
    }

    static func name(_ name: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }

    /// The body of one scrape.
    func body(_ snapshot: FleetSnapshot) -> [UInt8] {
        let metrics = snapshot.metrics
        gauges(
            "beekon_fleet_devices", "Devices by tracking state (dead: the app's process is gone).", "state",
            metrics.devicesByState)
        counter("beekon_fleet_fixes_admitted_total", "Fixes admitted by the gate and stored.", metrics.fixesStored)
        counter(
            "beekon_fleet_fixes_uploaded_total", "Fixes in batches the ingest server acknowledged.",
            metrics.fixesUploaded)
        counters(
            "beekon_fleet_store_errors_total", "Device store failures by cause (full, tooManyOpenFiles, ioError, ...).",
            "cause", metrics.storeErrorsByCause)
        counters(
            "beekon_fleet_fixes_lost_total", "Admitted fixes whose insert failed, by the store error's cause.", "cause",
            metrics.fixesLostByCause)
        counters(
            "beekon_fleet_geofence_events_lost_total", "Geofence events whose insert failed, by cause.", "cause",
            metrics.geofenceEventsLostByCause)
        registry.makeGauge(
            descriptor: Self.name("beekon_fleet_pending_fixes", "Fixes stored and not yet acknowledged.")
        )
        .set(to: Double(metrics.pending))
        counters(
            "beekon_fleet_uploads_total",
            "Upload POSTs by outcome (status code, network failure, or offline: the device's network went down while it was out).",
            "outcome", metrics.batchesByOutcome)
        counter(
            "beekon_fleet_answers_after_timeout_total",
            "Server answers that came after the device's timeout had ended the transfer.", metrics.answersAfterTimeout)
        counter(
            "beekon_fleet_answers_after_offline_total",
            "Server answers the device never heard because its network went down first (it heard offline).",
            metrics.answersAfterOffline)
        registry.makeGauge(
            descriptor: Self.name(
                "beekon_fleet_warp",
                "Virtual seconds per real second, as set, or at max warp the rate reached (virtual time stands still while paused)."
            )
        ).set(to: snapshot.warp)
        registry.makeGauge(
            descriptor: Self.name(
                "beekon_fleet_max_warp", "1 while the clock jumps from event to event (run --warp max), else 0.")
        ).set(to: snapshot.maxWarp ? 1 : 0)
        var buffer: [UInt8] = []
        buffer.reserveCapacity(8192)
        registry.emit(into: &buffer)
        return buffer
    }

    private func counter(_ name: String, _ help: String, _ value: Int) {
        let counter = registry.makeCounter(descriptor: Self.name(name, help))
        counter.reset()
        counter.increment(by: Int64(value))
    }

    private func counters(_ name: String, _ help: String, _ label: String, _ values: [String: Int]) {
        for (key, value) in values {
            let counter = registry.makeCounter(descriptor: Self.name(name, help), labels: [(label, key)])
            counter.reset()
            counter.increment(by: Int64(value))
        }
    }

    private func gauges(_ name: String, _ help: String, _ label: String, _ values: [String: Int]) {
        for (key, value) in values {
            registry.makeGauge(descriptor: Self.name(name, help), labels: [(label, key)]).set(to: Double(value))
        }
    }
}
