import ArgumentParser
import BeekonDevice
import BeekonStore
import FleetAdmin
import FleetCommandLine
import FleetEngine
import Foundation

/// `beekon-bench metrics`: what `/metrics` and the latency histograms cost, on one core.
struct BenchMetrics: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metrics",
        abstract:
            "Time /metrics for a 10,000-device snapshot, and the latency histogram's record, merge, "
            + "percentiles and memory.",
        discussion: """
            Builds the counters a fleet of --devices publishes after --uploads uploads (devices \
            by state, outcomes, store errors; upload and server latencies drawn from a seeded \
            log-uniform spread, 1% timeouts at 30 s) and renders GET /metrics's body from it \
            --renders times. /metrics reads only those counters, not the device list, so the \
            device count enters through the by-state gauge. Then: recording the --uploads \
            latencies; merging ten histograms of a tenth of them each into an empty one (the \
            admin API's last 10 seconds of one outcome); the four percentiles and max of the \
            filled histogram (what /api/v1/stats reads per outcome, four times); and the memory \
            of a histogram that holds a 30 s timeout.
            """)

    @Flag(help: "Print the figures as one JSON object.")
    var json = false

    /// `--devices`.
    static let devicesRange = NumberRange.integer(1...1_000_000, unit: "devices")

    @Option(help: "Devices in the snapshot, 1 to 1000000.", transform: FlagNumber.integer(devicesRange))
    var devices = 10_000

    /// `--uploads`.
    static let uploadsRange = NumberRange.integer(1000...100_000_000, unit: "uploads")

    @Option(help: "Uploads recorded in the histograms, 1000 to 100000000.", transform: FlagNumber.integer(uploadsRange))
    var uploads = 1_000_000

    /// `--renders`.
    static let rendersRange = NumberRange.integer(1...10_000_000, unit: "renders")

    @Option(help: "Renders of /metrics to time, 1 to 10000000.", transform: FlagNumber.integer(rendersRange))
    var renders = 5_000

    func run() throws {
        var rng = SplitMix64(seed: 14)
        // Upload latency 20 ms to 2 s and the server's 0.2 to 20 ms, log-uniform; every 100th a timeout.
        let latencies = (0..<uploads).map { index in
            index % 100 == 99 ? 30_000 : 20 * pow(100, Double.random(in: 0...1, using: &rng))
        }
        let serverLatencies = (0..<uploads).map { _ in 0.2 * pow(100, Double.random(in: 0...1, using: &rng)) }
        let clock = ContinuousClock()

        var latency = LatencyHistogram()
        var began = clock.now
        for millis in latencies { latency.record(millis) }
        let recordNanos = (clock.now - began).seconds * 1e9 / Double(uploads)
        var seconds = [LatencyHistogram](repeating: LatencyHistogram(), count: 10)
        for (index, millis) in latencies.enumerated() { seconds[index % 10].record(millis) }
        var serverLatency = LatencyHistogram()
        for millis in serverLatencies { serverLatency.record(millis) }

        let snapshot = Self.snapshot(devices: devices, uploads: uploads, latency: latency, server: serverLatency)
        var bytes = 0
        began = clock.now
        for _ in 0..<renders { bytes = PrometheusText.body(snapshot).count }
        let renderMicros = (clock.now - began).seconds * 1e6 / Double(renders)

        let repeats = 1000
        var sink = 0.0
        began = clock.now
        for _ in 0..<repeats {
            var merged = LatencyHistogram()
            for second in seconds { merged.merge(second) }
            sink += merged.sum
        }
        let mergeMicros = (clock.now - began).seconds * 1e6 / Double(repeats)
        began = clock.now
        for _ in 0..<repeats {
            for fraction in [0.5, 0.9, 0.95, 0.99] { sink += latency.percentile(fraction) }
            sink += latency.max
        }
        let percentileMicros = (clock.now - began).seconds * 1e6 / Double(repeats)

        // Each histogram its own: one record makes its storage unique.
        let residentBefore = ProcessMemory.residentKiB()
        var held: [LatencyHistogram] = []
        for _ in 0..<repeats {
            var histogram = LatencyHistogram()
            histogram.record(30_000)
            held.append(histogram)
        }
        let kibPerHistogram = Double(ProcessMemory.residentKiB() - residentBefore) / Double(held.count)

        var report = BenchReport(title: "beekon-bench metrics")
        report.add("devices", "devices in the snapshot", Double(devices), unit: "")
        report.add("uploads", "uploads in the histograms", Double(uploads), unit: "")
        report.add("render_us", "GET /metrics body, per render", renderMicros, unit: "µs")
        report.add("bytes", "GET /metrics body", Double(bytes), unit: "bytes")
        report.add("record_ns", "latency record, per upload", recordNanos, unit: "ns")
        report.add("merge_us", "merge of 10 one-second histograms", mergeMicros, unit: "µs")
        report.add("percentiles_us", "p50, p90, p95, p99 and max", percentileMicros, unit: "µs")
        report.add("histogram_kib", "memory of a histogram holding 30 s", kibPerHistogram, unit: "KiB")
        report.note(
            String(
                format: "upload latency p50 %.1f p99 %.1f ms, server p99 %.2f ms (checksum %.0f)",
                latency.percentile(0.5), latency.percentile(0.99), serverLatency.percentile(0.99),
                sink.truncatingRemainder(dividingBy: 10)))
        print(report.render(json: json))
    }

    /// The counters a fleet of `devices` publishes once it has sent `uploads` uploads.
    static func snapshot(devices: Int, uploads: Int, latency: LatencyHistogram, server: LatencyHistogram)
        -> FleetSnapshot
    {
        var snapshot = FleetSnapshot()
        snapshot.warp = 30
        var metrics = FleetMetrics()
        metrics.devices = devices
        let idle = devices / 20
        let dead = devices / 33
        let paused = devices / 50
        let storeError = devices / 66
        metrics.devicesByState = [
            .sdk(.tracking): devices - idle - dead - 2 * paused - storeError, .sdk(.idle): idle, .dead: dead,
            .sdk(.paused(.permissionRevoked)): paused, .sdk(.paused(.locationDisabled)): paused,
            .storeError: storeError,
        ]
        metrics.fixes.ledger = FixLedger(
            admitted: uploads * 4 + 400, acknowledged: uploads * 4 - devices, rejected: 0, pending: devices,
            expired: 0, deleted: 0, lost: 400)
        metrics.batchesSent = uploads
        let outcomes: [(TransferOutcome, Int)] = [
            (.status(200), uploads - uploads / 20), (.status(503), uploads / 40), (.failed(.timeout), uploads / 100),
            (.failed(.refused), uploads / 200), (.offline, uploads / 200),
        ]
        for (outcome, count) in outcomes {
            for index in 0..<count {
                metrics.uploads.record(
                    outcome, latencyMillis: Double(index % 500), serverMillis: nil, realNanos: UInt64(index) * 1000)
            }
        }
        metrics.storeErrorsByCause = ["full": 12, "tooManyOpenFiles": 3]
        metrics.fixesLostByCause = ["full": 400]
        metrics.answersAfterTimeout = uploads / 1000
        metrics.answersAfterOffline = uploads / 2000
        metrics.latency = latency
        metrics.serverLatency = server
        snapshot.metrics = metrics
        return snapshot
    }
}
