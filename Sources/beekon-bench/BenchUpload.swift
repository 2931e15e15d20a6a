import ArgumentParser
import BeekonDevice
import BeekonNet
import FleetCommandLine
import Foundation

/// `beekon-bench upload`: the fleet's upload path side by side with wrk against nginx on
/// the same loopback, and against the project's own receiver.
struct BenchUpload: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "upload",
        abstract: "Compare the fleet's uploads with wrk's against nginx, and against the reference receiver.",
        discussion: """
            In one run, each phase lasting --seconds: (a) wrk POSTs one pre-built 1-fix gzipped \
            batch (the SDK's headers) to nginx answering 204: the loopback's limit on this \
            machine; (b) the bench fleet (every-fix gate) uploads real batches of 1 fix, then \
            of 100 fixes, to the same nginx; (c) the fleet uploads 1-fix batches to \
            `beekon-fleet receive` run as a child process, its database in a temporary folder; \
            (d) Locust (PyPI locust) runs headless in one process with bench/locustfile.py: \
            --locust-users FastHttpUsers, each building a fresh 1-fix, then 100-fix batch per \
            request, POST them to the same nginx. Prints requests/s, fixes/s and CPU seconds of \
            each side, the fleet/wrk ratio, and the fleet's uploads (1-fix) and fixes (100-fix) \
            per CPU-second over Locust's. nginx is configured by this command (a temporary \
            nginx.conf, --nginx-workers worker processes). Needs wrk and nginx (Debian packages \
            wrk and nginx); --skip-wrk leaves out (a), and (b) too when nginx is missing; without \
            locust on PATH, or with --skip-locust, (d) is left out. See docs/benchmarks.md.
            """)

    @Flag(help: "Print the figures as one JSON object.")
    var json = false

    @OptionGroup var fleet: BenchFleetOptions

    /// `--wrk-threads` and `--nginx-workers`.
    static let workersRange = NumberRange.integer(1...256, unit: "threads")
    /// `--wrk-connections`.
    static let connectionsRange = NumberRange.integer(1...100_000, unit: "connections")

    @Option(
        help: "Wall-clock seconds of each phase (wrk, and each fleet run), 0.1 to 86400.",
        transform: FlagNumber.real(BenchFleet.secondsRange))
    var seconds: Double = 10

    @Option(help: "wrk's threads, 1 to 256.", transform: FlagNumber.integer(workersRange))
    var wrkThreads = 1

    @Option(
        help: "wrk's connections, 1 to 100000 and at least --wrk-threads.",
        transform: FlagNumber.integer(connectionsRange))
    var wrkConnections = 64

    @Option(
        help: "nginx worker processes, 1 to 256 (1 leaves the other core of a 2-core machine to the client).",
        transform: FlagNumber.integer(workersRange))
    var nginxWorkers = 1

    @Flag(help: "Run without wrk: leave out (a) and the ratio; (b) still runs when nginx is installed.")
    var skipWrk = false

    /// `--locust-users`.
    static let locustUsersRange = NumberRange.integer(1...10_000, unit: "users")

    @Option(
        help: "Locust's users (FastHttpUser, all spawned in the first second), 1 to 10000.",
        transform: FlagNumber.integer(locustUsersRange))
    var locustUsers = 64

    @Flag(help: "Run without Locust: leave out (d) and the ratios to it.")
    var skipLocust = false

    /// wrk takes whole seconds.
    var wrkSeconds: Int { Int(seconds.rounded(.up)) }

    func validate() throws {
        guard wrkConnections >= wrkThreads else {
            throw ValidationError(
                "--wrk-connections \(wrkConnections) is below --wrk-threads \(wrkThreads); expected at least as "
                    + "many connections as threads.")
        }
    }

    func run() throws {
        // Raised before the children start, so nginx inherits the limit too.
        FileLimit.raiseToHardLimit()
        let wrk = skipWrk ? nil : ChildProcess.find("wrk")
        let nginx = ChildProcess.find("nginx", extraDirectories: ["/usr/sbin", "/usr/local/sbin"])
        if !skipWrk, wrk == nil || nginx == nil {
            let missing = [wrk == nil ? "wrk" : nil, nginx == nil ? "nginx" : nil].compactMap { $0 }
            throw CommandFailure(
                "beekon-bench upload: \(missing.joined(separator: " and ")) not found on PATH (nor in /usr/sbin); "
                    + "install the Debian packages: apt-get install -y wrk nginx. Or pass --skip-wrk to "
                    + "measure without wrk (and without nginx, only the fleet against the receiver).")
        }
        let folder = try BenchFolder(nil)
        defer { folder.remove() }
        var report = BenchReport(title: "beekon-bench upload")
        report.add("devices", "fleet devices", Double(fleet.devices), unit: "")
        report.add("warp", "fleet warp", fleet.warp, unit: "×")
        var wrkRPS: Double?
        var fleetPhases: [Int: FleetPhase] = [:]
        var locustWindows: [Int: LocustWindow] = [:]
        if let nginx {
            let server = try LoopbackNginx(executable: nginx, prefix: folder.path("nginx"), workers: nginxWorkers)
            defer { server.stop() }
            if let wrk {
                let result = try measureWrk(wrk, url: server.url, server: server.process, folder: folder)
                wrkRPS = result.rps
                report.add("wrk_rps", "(a) wrk → nginx, 1-fix batch: requests", result.rps, unit: "req/s")
                report.add("wrk_client_cpu_s", "    CPU: wrk", result.clientCPU, unit: "s")
                report.add("wrk_server_cpu_s", "    CPU: nginx", result.serverCPU, unit: "s")
                report.add(
                    "wrk_cpu_us_per_req", "    CPU per request, both sides",
                    (result.clientCPU + result.serverCPU) / Double(max(result.requests, 1)) * 1e6, unit: "µs")
                report.note(
                    "(a) wrk -t\(wrkThreads) -c\(wrkConnections) -d\(wrkSeconds)s: \(result.requests) requests, "
                        + "\(result.errors) socket errors, \(result.non2xx) non-2xx; "
                        + "body \(result.bodyBytes) bytes gzipped"
                )
            } else {
                report.note("(a) left out: --skip-wrk")
            }
            for threshold in [1, 100] {
                let phase = try measureFleet(
                    threshold: threshold, ingest: server.url, server: server.process,
                    folder: folder.path("fleet-nginx-\(threshold)"))
                fleetPhases[threshold] = phase
                phase.add(
                    to: &report, key: "fleet", suffix: "\(threshold)fix",
                    label: "(b) fleet → nginx, \(threshold)-fix batches")
            }
            if skipLocust {
                report.note("(d) left out: --skip-locust")
            } else if let locust = try LocustRun.find(users: locustUsers, seconds: seconds) {
                for fixes in [1, 100] {
                    let measured = try locust.measure(
                        fixes: fixes, host: "http://127.0.0.1:\(server.port)", path: "/ingest", folder: folder)
                    locustWindows[fixes] = measured.window
                    Self.add(measured, fixes: fixes, locust: locust, to: &report)
                }
            } else {
                report.note("(d) left out: \(LocustRun.notFound); or pass --skip-locust")
            }
        } else {
            report.note("(a), (b) and (d) left out: nginx not found (Debian package nginx)")
        }
        let receiver = try measureReceiver(folder: folder)
        receiver.phase.add(to: &report, key: "receiver", suffix: "1fix", label: "(c) fleet → receiver, 1-fix batches")
        report.note("(c) \(receiver.stopped)")
        if let wrkRPS, let fleetRPS1 = fleetPhases[1]?.rps {
            report.add("ratio_fleet_wrk_1fix", "fleet / wrk, 1-fix requests/s", fleetRPS1 / wrkRPS, unit: "×")
        }
        Self.addLocustRatios(fleet: fleetPhases, locust: locustWindows, to: &report)
        report.note(
            "nginx \(nginxWorkers) worker(s); fleet: every-fix gate, --max-connections \(fleet.maxConnections), "
                + "--spread \(fleet.spread), \(seconds) s a phase; "
                + BenchMachine.note())
        print(report.render(json: json))
    }

    /// What wrk measured.
    struct WrkResult {
        var requests: Int
        var rps: Double
        var errors: Int
        var non2xx: Int
        var bodyBytes: Int
        var clientCPU: Double
        var serverCPU: Double
    }

    /// (a): wrk POSTs one realistic 1-fix batch, gzipped as the SDK sends it, for --seconds.
    func measureWrk(_ wrk: String, url: String, server: ChildProcess, folder: BenchFolder) throws -> WrkResult {
        var fixes = FixSource(seed: 2026)
        let body = try GzipCompressor().compress(fixes.payload(fixes: 1).encoded())
        let bodyPath = folder.path("batch-1fix.json.gz")
        try Data(body).write(to: URL(fileURLWithPath: bodyPath))
        let script = folder.path("upload.lua")
        try """
        wrk.method = "POST"
        wrk.headers["Content-Type"] = "application/json"
        wrk.headers["Content-Encoding"] = "gzip"
        local file = assert(io.open("\(bodyPath)", "rb"))
        wrk.body = file:read("*a")
        file:close()
        done = function(summary, latency, requests)
            local e = summary.errors
            io.write(string.format("BENCH requests=%d duration_us=%d errors=%d non2xx=%d\\n",
                summary.requests, summary.duration, e.connect + e.read + e.write + e.timeout, e.status))
        end
        """.write(toFile: script, atomically: true, encoding: .utf8)
        let serverBefore = server.cpuSeconds()
        let process = try ChildProcess(
            wrk, ["-t\(wrkThreads)", "-c\(wrkConnections)", "-d\(wrkSeconds)s", "-s", script, url],
            outputPath: folder.path("wrk.out"))
        let clientCPU = process.waitForExit()
        let serverCPU = server.cpuSeconds() - serverBefore
        let output = process.output()
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("BENCH ") }) else {
            throw CommandFailure("wrk printed no summary:\n\(output)")
        }
        var values: [String: Int] = [:]
        for pair in line.dropFirst(6).split(separator: " ") {
            let parts = pair.split(separator: "=")
            if parts.count == 2 { values[String(parts[0])] = Int(parts[1]) }
        }
        let requests = values["requests"] ?? 0
        let duration = Double(values["duration_us"] ?? 0) / 1e6
        return WrkResult(
            requests: requests, rps: duration > 0 ? Double(requests) / duration : 0, errors: values["errors"] ?? 0,
            non2xx: values["non2xx"] ?? 0, bodyBytes: body.count, clientCPU: clientCPU, serverCPU: serverCPU)
    }

    /// One fleet run against a server process; its rates are those of the run's last half.
    struct FleetPhase {
        var result: BenchFleetRun.Result
        var steady: BenchFleetRun.Window
        /// The fleet's warp: with the every-fix gate each device is offered one fix a virtual second.
        var warp: Double

        /// Uploads answered 2xx per second.
        var rps: Double { Double(steady.requests) / steady.seconds }

        func add(to report: inout BenchReport, key: String, suffix: String, label: String) {
            let metrics = result.metrics
            let seconds = steady.seconds
            report.add("\(key)_rps_\(suffix)", "\(label): requests", rps, unit: "req/s")
            report.add(
                "\(key)_fixes_per_s_\(suffix)", "    fixes acknowledged", Double(steady.fixesUploaded) / seconds,
                unit: "fixes/s")
            report.add(
                "\(key)_admitted_per_s_\(suffix)", "    fixes admitted and stored",
                Double(steady.fixesStored) / seconds, unit: "fixes/s")
            report.add("\(key)_client_cpu_s_\(suffix)", "    CPU: fleet", steady.cpu, unit: "s")
            report.add("\(key)_server_cpu_s_\(suffix)", "    CPU: server", steady.serverCPU, unit: "s")
            report.add(
                "\(key)_cpu_us_per_req_\(suffix)", "    CPU per request, both sides",
                (steady.cpu + steady.serverCPU) / Double(max(steady.requests, 1)) * 1e6, unit: "µs")
            report.add(
                "\(key)_latency_ms_p50_\(suffix)", "    upload latency p50 (whole run)",
                metrics.latency.percentile(0.5), unit: "ms")
            report.add(
                "\(key)_latency_ms_p99_\(suffix)", "    upload latency p99 (whole run)",
                metrics.latency.percentile(0.99), unit: "ms")
            report.add(
                "\(key)_timer_lateness_ms_p99_\(suffix)", "    timer lateness p99 (whole run)",
                metrics.timerLateness.percentile(0.99), unit: "ms")
            // Rows piling up mean uploads were the limit; fixes admitted slower than the OS
            // offers them (one a virtual second a device) mean the fleet's loop was.
            let offered = Double(metrics.devices) * warp
            let bound =
                if metrics.fixes.ledger.pending > metrics.devices {
                    "upload-bound (fixes wait for uploads)"
                } else if Double(steady.fixesStored) / seconds < 0.9 * offered {
                    "loop-bound (fixes come late; each one is uploaded as it comes)"
                } else {
                    "fix-supply-bound (raise --warp or --devices)"
                }
            let outcomes = metrics.batchesByOutcome.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
            report.note(
                "\(label): figures over the last \(String(format: "%.1f", seconds)) s "
                    + "of \(String(format: "%.1f", result.wallSeconds)) s; "
                    + "outcomes \(outcomes.joined(separator: ", ")); "
                    + "\(metrics.fixes.ledger.pending) fixes pending at the end: "
                    + "\(bound); store errors \(metrics.storeErrors)")
        }
    }

    /// (b) and (c): the bench fleet with the every-fix gate, `threshold` fixes a batch.
    func measureFleet(threshold: Int, ingest: String, server: ChildProcess, folder: String) throws -> FleetPhase {
        let result = try BenchFleetRun(options: fleet, threshold: threshold, gate: .everyFix, seconds: seconds)
            .run(ingest: ingest, in: folder, serverCPU: server.cpuSeconds)
        guard let steady = result.steadyHalf else {
            throw CommandFailure(
                "the fleet ran too briefly to measure (\(result.wallSeconds) s); pass a longer --seconds")
        }
        return FleetPhase(result: result, steady: steady, warp: fleet.warp)
    }

    /// (c): `beekon-fleet receive` as a child process (its own CPU, read like nginx's; in-process
    /// it would share this process's getrusage and scheduler), its database in the bench folder.
    func measureReceiver(folder: BenchFolder) throws -> (phase: FleetPhase, stopped: String) {
        let receiver = try ReceiverChild(folder: folder.path("receiver"))
        let process = receiver.process
        let phase = try measureFleet(
            threshold: 1, ingest: receiver.url, server: process, folder: folder.path("fleet-receiver"))
        process.stop()
        let stopped = process.output().split(separator: "\n").last { $0.contains("stopped.") }
        return (phase, stopped.map(String.init) ?? "receiver: no summary")
    }

    /// (d): one Locust run's figures, over the locustfile's steady window (its run's second half).
    static func add(_ measured: LocustRun.Measured, fixes: Int, locust: LocustRun, to report: inout BenchReport) {
        let window = measured.window
        let label = "(d) Locust FastHttpUser → nginx, \(fixes)-fix batches"
        report.add("locust_rps_\(fixes)fix", "\(label): requests", window.requestsPerSecond, unit: "req/s")
        report.add(
            "locust_fixes_per_s_\(fixes)fix", "    fixes sent (answered 2xx)", Double(window.fixes) / window.seconds,
            unit: "fixes/s")
        report.add("locust_client_cpu_s_\(fixes)fix", "    CPU: locust", window.cpuSeconds, unit: "s")
        if let perRequest = window.cpuMicrosPerRequest {
            report.add("locust_cpu_us_per_req_\(fixes)fix", "    CPU per request, locust", perRequest, unit: "µs")
        }
        report.note(
            "\(label): locust -u \(locust.users) -r \(locust.users) -t \(locust.seconds)s, one process; figures "
                + "over its last \(String(format: "%.1f", window.seconds)) s: \(window.uploads) uploads answered 2xx, "
                + "\(window.failures) failed; CPU over the whole run, Python's start included: "
                + String(format: "%.2f s", measured.wholeRunCPU))
    }

    /// The fleet's work per CPU-second over Locust's: uploads with 1-fix batches, fixes
    /// acknowledged (the fleet) and sent and answered 2xx (Locust) with 100-fix batches; each
    /// side's CPU is its own (client) CPU over its steady window.
    static func addLocustRatios(fleet: [Int: FleetPhase], locust: [Int: LocustWindow], to report: inout BenchReport) {
        if let phase = fleet[1], let window = locust[1],
            let ratio = PerCPU.ratio(
                phase.steady.requests, cpu: phase.steady.cpu, over: window.uploads, otherCPU: window.cpuSeconds)
        {
            report.add(
                "ratio_uploads_per_cpu_vs_locust_1fix", "fleet / Locust, 1-fix uploads per CPU-s", ratio, unit: "×")
        }
        if let phase = fleet[100], let window = locust[100],
            let ratio = PerCPU.ratio(
                phase.steady.fixesUploaded, cpu: phase.steady.cpu, over: window.fixes, otherCPU: window.cpuSeconds)
        {
            report.add(
                "ratio_fixes_per_cpu_vs_locust_100fix", "fleet / Locust, 100-fix fixes per CPU-s", ratio, unit: "×")
        }
    }

}
