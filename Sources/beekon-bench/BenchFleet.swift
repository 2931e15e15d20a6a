import ArgumentParser
import BeekonDevice
import FleetCommandLine

/// `beekon-bench fleet`: a whole fleet against a loopback server that answers 204 at once.
struct BenchFleet: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleet",
        abstract: "Run N devices against a loopback 204 server and print throughput, memory and latency.",
        discussion: """
            Starts a libmicrohttpd server on 127.0.0.1 that reads each upload and answers 204, \
            writes a bench fleet (one 2 km walk, precision preset, high-accuracy fixes each \
            second) and runs it for --seconds of wall time at --warp, with device stores in a \
            temporary folder. With --gate every-fix (the default) every OS fix passes the gate and \
            each device uploads every --threshold fixes, so the figures are those of the path \
            fix → store → batch → gzip → POST → acknowledge; with --gate preset the precision \
            preset's own gate (10 s and 30 m) admits a fix about every 20 s of walking, the load \
            of a real fleet, for capacity runs such as 10,000 devices at --warp 1.
            """)

    @Flag(help: "Print the figures as one JSON object.")
    var json = false

    @OptionGroup var fleet: BenchFleetOptions

    /// `--seconds` of `fleet` and `upload`: a tenth of a second to a day.
    static let secondsRange = NumberRange(0.1...86_400, unit: "s")

    @Option(help: "Wall-clock seconds to run, 0.1 to 86400.", transform: FlagNumber.real(secondsRange))
    var seconds: Double = 20

    @Option(
        help: "Fixes per batch: each device uploads once this many are pending (syncThreshold, 0 to 100000).",
        transform: FlagNumber.integer(SyncConfig.syncThresholdRange))
    var threshold = 4

    @Option(help: "Which gate: every-fix (admit each OS fix) or preset (the precision preset's 10 s and 30 m).")
    var gate: BenchGate = .everyFix

    func run() throws {
        let commandStarted = BenchFleetRun.wallNow()
        let server = try NoContentServer()
        defer { server.stop() }
        let folder = try BenchFolder(nil)
        defer { folder.remove() }
        let result = try BenchFleetRun(options: fleet, threshold: threshold, gate: gate, seconds: seconds)
            .run(ingest: "http://127.0.0.1:\(server.port)/ingest", in: folder.root)
        // The stores are closed when the run returns; their files go with the folder, which is
        // the bench's own cleanup (a run keeps its stores), so it is timed apart.
        let closed = BenchFleetRun.wallNow()
        let rss = Double(ProcessMemory.residentKiB())
        folder.remove()
        let removed = BenchFleetRun.wallNow()
        let metrics = result.metrics
        let wall = result.wallSeconds
        let cpu = result.cpuSeconds
        var report = BenchReport(title: "beekon-bench fleet")
        report.add("devices", "devices", Double(metrics.devices), unit: "")
        report.add("warp", "warp", fleet.warp, unit: "×")
        report.add("loops", "event loops", Double(fleet.loopCount), unit: "")
        report.add("wall_s", "wall time", wall, unit: "s")
        report.add("cpu_s", "CPU time (preparing stores included)", cpu, unit: "s")
        report.add("rss_mib", "RSS", rss / 1024, unit: "MiB")
        report.add("rss_kib_per_device", "RSS per device", rss / Double(max(metrics.devices, 1)), unit: "KiB")
        report.add("admitted_per_s", "fixes admitted and stored", Double(metrics.fixesStored) / wall, unit: "fixes/s")
        report.add("batches_per_s", "batch uploads", Double(metrics.batchesSent) / wall, unit: "batches/s")
        report.add(
            "uploaded_per_s", "fixes acknowledged", Double(metrics.fixes.ledger.acknowledged) / wall, unit: "fixes/s")
        // The server's own answer time (wall ms), as before transfers moved onto the virtual clock;
        // what the devices lived (virtual ms, loop delays × warp included) beside it.
        report.add("latency_ms_p50", "server answer p50 (real)", metrics.serverLatency.percentile(0.5), unit: "ms")
        report.add("latency_ms_p99", "server answer p99 (real)", metrics.serverLatency.percentile(0.99), unit: "ms")
        report.add(
            "virtual_latency_ms_p50", "upload latency p50 (virtual)", metrics.latency.percentile(0.5), unit: "ms")
        report.add(
            "virtual_latency_ms_p99", "upload latency p99 (virtual)", metrics.latency.percentile(0.99), unit: "ms")
        report.add("timer_lateness_ms_p99", "timer lateness p99", metrics.timerLateness.percentile(0.99), unit: "ms")
        report.add(
            "clock_lag_dropped_s", "virtual time dropped (the loop behind its warp)",
            Double(metrics.clockLagDroppedMillis) / 1000,
            unit: "s")
        addPhases(of: result, commandStarted: commandStarted, stopped: closed, to: &report)
        report.add(
            "remove_s", "the bench removing the stores' folders (not part of a run)", removed - closed, unit: "s")
        report.note("server answered \(server.answered) uploads; store errors: \(metrics.storeErrors)")
        print(report.render(json: json))
    }

    /// `cpu_cores` and `achieved_warp` over the steady window (every device spawned, its store
    /// ready, up to the last sample before the loop ended), `prepare_s` from the command's start
    /// to the clock's, `start_s` to that window, and `stop_s` from its end until the run has
    /// drained and closed its stores.
    func addPhases(
        of result: BenchFleetRun.Result, commandStarted: Double, stopped: Double, to report: inout BenchReport
    ) {
        guard let last = result.samples.last, let sampled = result.sampledRun else {
            report.note(
                "cpu_cores, achieved_warp, start_s and stop_s left out: the run was too short to sample "
                    + "(4 samples a second); pass a longer --seconds")
            return
        }
        // The clock started `realSeconds` before the first sample: until then, the stores were made.
        if let first = result.samples.first {
            report.add(
                "prepare_s", "start: stores made, before the clock starts",
                first.wall - first.metrics.realSeconds - commandStarted, unit: "s")
        }
        let steady = result.steadyAfterSpawn
        let window = steady ?? sampled
        report.add("cpu_cores", "CPU (steady window)", window.cpuCores, unit: "cores")
        report.add("achieved_warp", "achieved warp (steady window)", window.achievedWarp, unit: "×")
        if let steady {
            report.add(
                "start_s", "start: until every device spawned, stores ready", steady.startWall - commandStarted,
                unit: "s")
        }
        report.add("stop_s", "stop: drain and close the stores", stopped - last.wall, unit: "s")
        let spawned = String(format: "%.1f", Double(result.allSpawnedMillis) / 1000)
        let windowSeconds = String(format: "%.1f", window.seconds)
        report.note(
            steady == nil
                ? "the run ended before every device spawned (the last at \(spawned) virtual s): start_s left out, "
                    + "cpu_cores and achieved_warp over the whole sampled run (\(windowSeconds) s)"
                : "steady window: \(windowSeconds) s, from the first sample after every device spawned (the last at "
                    + "\(spawned) virtual s) to the loop's last sample")
    }
}
