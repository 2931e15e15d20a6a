import ArgumentParser
import BeekonDevice
import FleetCommandLine
import FleetDescription
import FleetRuntime
import Foundation
import IngestReceiver

/// `beekon-bench timing`: the same server judged at warp 1, 60, 600 and max, each run on its own
/// data folder and receiver: the verdict and the server's real p99 should not move with the warp.
struct BenchTiming: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timing",
        abstract:
            "Run the demo fleet against the same server at warp 1, 60, 600 and max; print each run's verdict, "
            + "server.latency.p99 (real) and upload.latency.p99 (virtual).",
        discussion: """
            Loads the demo fleet (fleets/demo.yaml), scales it to --devices, fixes its clock.start, and runs \
            it for --for of virtual time at each warp with the timing the warp chooses (as answered at warp 1, \
            modelled elsewhere), against the reference receiver in-process answering every upload \
            --server-latency-ms late. The verdict is `upload.errors.rate < 0.01` and \
            `server.latency.p99 < 500ms`. Warp 1 takes --for of real time.
            """)

    @Flag(help: "Print the figures as one JSON object (keys prefixed w1_, w60_, w600_, wmax_).")
    var json = false

    @Option(
        help: "Devices, 3 to 100000 (the demo fleet's three groups, scaled in proportion).",
        transform: FlagNumber.integer(BenchMaxWarp.devicesRange))
    var devices = 100

    @Option(
        name: .customLong("for"),
        help: ArgumentHelp("Virtual time each warp runs, e.g. 2m (1ms to 366d).", valueName: "virtual-duration"),
        transform: FlagNumber.runLength)
    var virtualDuration: Int64 = 120_000

    /// `--server-latency-ms`: the receiver's scripted latency.
    static let latencyRange = NumberRange.integer(0...10_000, unit: "ms")

    @Option(
        help: "How late the receiver answers every upload, 0 to 10000 ms of real time.",
        transform: FlagNumber.integer(latencyRange))
    var serverLatencyMs = 50

    static let thresholds = ["upload.errors.rate < 0.01", "server.latency.p99 < 500ms"]

    func run() throws {
        var (fleet, path) = try DemoRun.fleet(devices: devices)
        fleet.clock.timing = .auto
        // The server alone: no injected faults, and uploads every few fixes so a short run has many.
        fleet.faults = []
        for index in fleet.groups.indices {
            guard var sync = fleet.groups[index].config.sync else { continue }
            sync.syncThreshold = 3
            fleet.groups[index].config.sync = sync
        }
        var report = BenchReport(title: "beekon-bench timing")
        report.add("server_latency_ms", "the receiver's scripted latency (real)", Double(serverLatencyMs), unit: "ms")
        for (name, warp) in [("1", Warp.rate(1)), ("60", .rate(60)), ("600", .rate(600)), ("max", .max)] {
            let figures = try measure((fleet, path), warp: warp)
            let key = "w\(name)_"
            let at = "warp \(name):"
            report.add(key + "passed", "\(at) verdict (1 passed, 0 failed)", figures.passed ? 1 : 0, unit: "")
            report.add(key + "modelled", "\(at) modelled timing (1) or as answered (0)", figures.modelled, unit: "")
            report.add(key + "server_p99_ms", "\(at) server.latency.p99 (real)", figures.serverP99, unit: "ms")
            report.add(
                key + "receiver_p99_ms", "\(at) the receiver's own answer p99 (real)", figures.ownP99, unit: "ms")
            report.add(key + "upload_p99_ms", "\(at) upload.latency.p99 (virtual)", figures.uploadP99, unit: "ms")
            report.add(key + "uploads", "\(at) uploads heard", figures.uploads, unit: "")
            report.add(key + "real_s", "\(at) real time", figures.realSeconds, unit: "s")
        }
        report.note("thresholds: " + Self.thresholds.joined(separator: ", "))
        print(report.render(json: json))
    }

    struct Figures {
        var passed: Bool
        var modelled: Double
        var serverP99: Double
        var ownP99: Double
        var uploadP99: Double
        var uploads: Double
        var realSeconds: Double
    }

    /// One run at `warp` on a data folder and receiver of its own.
    func measure(_ demo: (fleet: FleetFile, path: String), warp: Warp) throws -> Figures {
        let folder = try BenchFolder(nil)
        defer { folder.remove() }
        let thresholds = try Self.thresholds.map { text in
            do throws(ThresholdProblem) { return try Threshold.read(text) } catch { throw CommandFailure("\(error)") }
        }
        let (runtime, receiver) = try DemoRun.start(
            demo, devices: devices, in: folder, warp: warp, virtualDuration: virtualDuration,
            latencyMillis: serverLatencyMs, thresholds: thresholds, for: "beekon-bench timing")
        defer { receiver.stop() }
        let started = DispatchTime.now().uptimeNanoseconds
        try runtime.run(progressEverySeconds: 86_400)
        let snapshot = runtime.snapshot
        let results = snapshot.thresholds.check(snapshot.metrics, groups: snapshot.groups)
        let metrics = snapshot.metrics
        return Figures(
            passed: results.allSatisfy(\.passed), modelled: snapshot.deterministic ? 1 : 0,
            serverP99: metrics.serverLatency.percentile(0.99),
            ownP99: Double(receiver.stats().answerMicros.p99) / 1_000, uploadP99: metrics.latency.percentile(0.99),
            uploads: Double(metrics.uploads.overall.values.reduce(0) { $0 + $1.count }),
            realSeconds: Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9)
    }
}
