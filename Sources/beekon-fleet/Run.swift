import ArgumentParser
import BeekonDevice
import BeekonNet
import FleetAdmin
import FleetCommandLine
import FleetDescription
import FleetEngine
import FleetReport
import FleetRuntime
import Foundation
import IngestReceiver
import Logging
import ServerTruth

/// Runs a fleet file against an ingest server.
///
/// What it prints on standard output is its output: the start lines (what runs, where the
/// receiver and the admin are, where a resumed clock starts), the progress lines and the
/// summary. Warnings, errors and detail go to the log, on standard error, by `--log-level`.
struct Run: LoggingCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a fleet of emulated devices from a fleet file.",
        discussion: """
            Without a fleet file, runs the demo fleet (fleets/demo.yaml: 100 devices on the \
            shipped routes). Without an ingest URL (--ingest, or `ingest:` in the fleet file), \
            starts the reference ingest receiver in-process on 127.0.0.1 and says where. Device \
            stores live under --data, so a second run on the same folder resumes the same \
            devices (install ids, sessions, tokens, pending fixes), as long as it is a run of the same \
            fleet (name and groups) uploading to the same ingest: otherwise it is refused, and --resume \
            goes on anyway or --fresh discards the earlier run. Ctrl-C stops cleanly. \
            --for (or `duration:` in the fleet file) ends the run after that much virtual time; \
            --duration after that much wall-clock time; given both, the first reached ends it.
            """)

    @Argument(help: "The fleet file (YAML); the demo fleet when omitted.")
    var fleetFile: String?

    @Option(help: "Where the device stores live.")
    var data = ".beekon-fleet"

    @Option(help: "The ingest URL (overrides the fleet file's `ingest`); without one, a receiver starts in-process.")
    var ingest: String?

    @Option(
        help: ArgumentHelp(
            """
            Virtual seconds per real second, 0.01 to 10000 (overrides the fleet file), or `max`: the \
            clock jumps to the next event as soon as the due work is done (needs modelled timing).
            """,
            valueName: "warp"),
        transform: FlagNumber.warp)
    var warp: Warp?

    @Option(
        help: "The run seed, 0 to 999999999999999 (overrides the fleet file).",
        transform: FlagNumber.unsigned(FleetFile.seedRange))
    var seed: UInt64?

    @Option(
        help: """
            Stop after this much wall-clock (real) time, e.g. 90s or 10m (0s to 366d); \
            with --for, whichever comes first.
            """,
        transform: FlagNumber.duration)
    var duration: Int64?

    @Option(
        name: .customLong("for"),
        help: ArgumentHelp(
            """
            Stop after this much virtual time on the fleet's clock, e.g. 8h (1ms to 366d; \
            overrides the fleet file's `duration`); with --duration, whichever comes first.
            """,
            valueName: "virtual-duration"),
        transform: FlagNumber.runLength)
    var virtualDuration: Int64?

    @Option(
        help: """
            The run's devices in all, 1 to 1000000: the fleet file's groups scaled to it in proportion \
            to their counts, each keeping at least one (default: the file's counts).
            """,
        transform: FlagNumber.integer(FleetFile.scaledDevicesRange))
    var devices: Int?

    @Option(
        help: "Most uploads in flight at once, 0 (unlimited) to 65536.",
        transform: FlagNumber.integer(RunOptions.maxConnectionsRange))
    var maxConnections = 256

    @Option(
        help: """
            Event loops to split the devices over, each on a thread (a core) of its own with its \
            share of them, 1 to 64 (default: one per 10,000 devices, at most one per core).
            """,
        transform: FlagNumber.integer(RunOptions.loopsRange))
    var loops: Int?

    @Option(
        help: ArgumentHelp(
            """
            Run only shard INDEX of COUNT of the fleet (from 0; COUNT 1 to 1024): the devices whose place \
            in their group leaves INDEX when divided by COUNT, exactly as they would run in one process. \
            Its stores live in DATA/shard-INDEX-of-COUNT; merge the shards' reports with `report merge`. \
            `auto/COUNT` takes the first index no other process sharing DATA holds (replicas that know no \
            index) and, without --start-at, starts once all COUNT are held.
            """,
            valueName: "index/count"),
        transform: ShardFlag.read)
    var shard: ShardFlag.Choice?

    @Option(
        name: .customLong("start-at"),
        help: ArgumentHelp(
            """
            Hold the run, once its stores are ready, until this wall-clock instant (RFC 3339, such as \
            2026-11-27T12:00:00Z; at most 7 days ahead), so shards started at different moments begin \
            together; a fleet file without `clock.start` starts its virtual clock there too.
            """,
            valueName: "instant"),
        transform: ShardFlag.readStartAt)
    var startAt: Int64?

    @Option(
        name: .customLong("clock-start"),
        help: ArgumentHelp(
            """
            Start the virtual clock at this instant (RFC 3339, such as 2026-06-01T08:00:00Z; 1970 to \
            9999), over the fleet file's `clock.start`, so a run replays exactly (the run's last lines \
            say how). Only on a fresh data folder: one holding an earlier run resumes its clock, so it \
            is refused there (--fresh starts anew).
            """,
            valueName: "instant"),
        transform: ShardFlag.readClockStart)
    var clockStart: Int64?

    @Flag(
        help: """
            Resume the data folder's earlier run even when it was of another fleet or uploaded to \
            another ingest: its devices' pending fixes go to this run's.
            """)
    var resume = false

    @Flag(
        help: """
            Discard the data folder's earlier run (its devices, stores, pending fixes, clock, and the \
            in-process receiver's database) and start anew.
            """)
    var fresh = false

    @Option(
        name: .customLong("threshold"),
        help: ArgumentHelp(
            "A criterion the run must meet, as k6's thresholds: `upload.latency.p99 < 500ms`, "
                + "`upload.errors.rate < 0.01`, `upload.status.503.rate < 1%`, `fixes.lost == 0`, "
                + "`fixes.age.p99 < 5m`, `backlog.max < 1000`, `duplicates.fixes == 0`, `drain.max < 10m`; "
                + "one group's with `METRIC{group: NAME}` (repeatable; with the fleet file's `thresholds:`). "
                + "One that fails makes the run exit 99. docs/fleet-file.md lists every metric.",
            valueName: "expression"),
        transform: ThresholdFlag.read)
    var thresholds: [Threshold] = []

    @Flag(
        help: """
            With no threshold given, the default ones (fixes.lost == 0, upload.errors.rate < 0.05) \
            fail the run too (exit 99); without it they are only reported.
            """)
    var strict = false

    @OptionGroup var outputs: ReportOutputs

    @Option(
        help: ArgumentHelp(
            "A report of an earlier run of the same fleet (`run --report`): compare this run with it at the end, "
                + "as `report compare` does; thresholds with a signed limit (`server.latency.p99 < +10%`) judge "
                + "the change. Refused before anything runs when the fleet, groups, seed, start or timing differ.",
            valueName: "file"))
    var baseline: String?

    @Flag(help: "With --baseline: compare even when the baseline's fleet, groups, seed, start or timing differ.")
    var force = false

    @Flag(
        help: """
            At the end, check the server's store against what every device was told, as `beekon-fleet \
            verify` does: the in-process receiver's, or the rows --stored-cmd prints. Its thresholds \
            (server.lost, server.duplicates, …; by default server.lost == 0 and server.duplicates == 0) \
            count toward the exit code; the report gains `server_truth`.
            """)
    var verify = false

    @Option(
        name: .customLong("stored-cmd"),
        help: ArgumentHelp(
            "With --verify: a shell command that prints the server's rows (install_id,fix_id CSV or NDJSON), e.g. "
                + "`psql -At -F, -c 'select install_id, id from locations'`.", valueName: "command"))
    var storedCommand: String?

    @Flag(
        help: """
            Once the run is over (its summary printed, its files written), keep the admin API up with \
            its last figures until Ctrl-C or SIGTERM, as k6's --linger: Prometheus scrapes the final \
            counts, and GET /api/v1/report answers the finished run.
            """)
    var linger = false

    @Option(help: "A CA bundle for an HTTPS ingest server.")
    var caFile: String?

    @Flag(help: "Skip TLS certificate checks (test servers only).")
    var insecure = false

    @Option(
        help: ArgumentHelp(
            "Local IPv4 addresses the devices' connections leave from, as k6's localIPs: "
                + "`127.0.0.2-127.0.0.250,10.0.0.7` (1 to 65536); each device keeps one, so per-IP limits see "
                + "many phones (overrides the fleet file's network.sourceAddresses).",
            valueName: "addresses"),
        transform: { text in
            do throws(SourceAddressProblem) {
                return try SourceAddresses(reading: text)
            } catch {
                throw ValidationError("--source-addresses \(error); expected " + SourceAddressProblem.expected)
            }
        })
    var sourceAddresses: SourceAddresses?

    @Option(
        help: ArgumentHelp(
            "`auto`: HTTPS connections offer HTTP/2 by ALPN, as phones do (the default; http:// stays HTTP/1.1); "
                + "`off`: HTTP/1.1 only (overrides the fleet file's network.http2).",
            valueName: "auto|off"))
    var http2: FleetFile.HTTP2Choice?

    @Option(
        help: ArgumentHelp(
            """
            How long an answer takes on the virtual clock (overrides the fleet file's clock.timing). \
            `modelled`: every upload and token refresh takes 100 virtual ms (plus injected latency) \
            and virtual time waits for each real answer, so what devices hear does not depend on the \
            machine's or the server's speed. `as-answered`: an answer takes its real time × the warp \
            (at warp 60, 500 ms is the SDK's 30 s timeout). `auto` (the default): as-answered at warp 1, \
            modelled at any other warp. The server is judged on its real time either way (server.latency).
            """,
            valueName: "auto|modelled|as-answered"))
    var timing: TimingChoice?

    @Flag(help: "The same as --timing modelled.")
    var deterministic = false

    @Option(help: "The admin API and page: HOST:PORT (port 0 picks one), or `off`; other than loopback needs a token.")
    var admin = "127.0.0.1:8080"

    @Option(help: "The admin API's bearer token (default: env BEEKON_ADMIN_TOKEN).")
    var adminToken: String?

    @Option(
        help: ArgumentHelp(
            """
            A host name the admin answers to besides loopback and its bind host \
            (repeatable or comma-separated; also env BEEKON_ADMIN_ALLOWED_HOSTS).
            """,
            valueName: "name"))
    var adminAllowedHost: [String] = []

    @OptionGroup var logging: LogLevelOptions

    func validate() throws {
        if deterministic, let timing, timing != .modelled {
            throw ValidationError("--deterministic is --timing modelled; it contradicts --timing \(timing.rawValue)")
        }
        if resume && fresh {
            throw ValidationError(
                "--resume goes on with the data folder's earlier run and --fresh discards it; give one of them")
        }
    }

    func run() throws {
        StandardOutput.flushEachLine()
        // First what can be refused without creating anything: the fleet file, the options and
        // the descriptor budget.
        let path = try fleetFile ?? DefaultFleet.locate()
        var fleet: FleetFile
        do throws(FleetFileProblems) {
            fleet = try FleetFile.load(path: path)
        } catch {
            // A fleet file the run cannot take is a usage error, as a bad flag is (and `validate` says).
            throw CommandFailure(error.description, exitCode: .usage, prefixed: false)
        }
        if let wanted = self.devices {
            switch fleet.scaled(toDevices: wanted) {
            case .success(let scaled): fleet = scaled
            case .failure(let problem): throw CommandFailure(problem.description, exitCode: .usage)
            }
        }
        if linger, admin.lowercased() == "off" {
            throw CommandFailure(
                "--linger keeps the admin API up after the run; it needs --admin, not off", exitCode: .usage)
        }
        // The shard: given, or claimed among the replicas sharing the data folder, which then
        // start together once all of them are there (unless told when).
        var shard = Shard.whole
        var startAt = self.startAt
        var claim: ShardClaim?
        switch self.shard {
        case nil: break
        case .given(let given)?: shard = given
        case .claimed(let count)?:
            let held = try ShardClaim.claim(count: count, dataDirectory: data)
            claim = held
            shard = held.shard
            print("beekon-fleet: holds shard \(shard) of the processes sharing \(data) (--shard auto/\(count))")
            if startAt == nil {
                print("beekon-fleet: waiting until all \(count) shards are held, to start together")
                startAt = try held.commonStart(marginMillis: 10_000)
            }
        }
        defer { withExtendedLifetime(claim) {} }
        let outputs = self.outputs.forShard(shard)
        let chartsScript = try outputs.check()
        // A baseline is read before anything runs: one that cannot be compared with is refused.
        if baseline != nil, shard != .whole {
            throw CommandFailure(
                "--baseline compares a whole run, and shard \(shard) runs part of the fleet: merge the shards' "
                    + "reports (report merge --report FILE), then `report compare BASE FILE`", exitCode: .usage)
        }
        let baselineSide = try baseline.map(Compare.side)
        // Signed limits judge the change from the baseline, not the run's own values.
        let changeThresholds = (thresholds + fleet.thresholds).filter { $0.change != nil }
        if baselineSide == nil, let threshold = changeThresholds.first {
            throw CommandFailure(
                "threshold `\(threshold.expression)` is a change from a baseline run (a signed limit); give the "
                    + "baseline's report with --baseline FILE, or a limit without + or -", exitCode: .usage)
        }
        if force, baselineSide == nil {
            throw CommandFailure("--force compares with a baseline that differs; it needs --baseline", exitCode: .usage)
        }
        if let baselineSide {
            let problems = RunComparison.unjudgeable(
                changeThresholds, baseline: baselineSide, candidateGroups: fleet.groups.map(\.name),
                candidateVerified: verify, candidate: "this run")
            if !problems.isEmpty {
                throw CommandFailure("cannot judge " + problems.joined(separator: "; "), exitCode: .usage)
            }
        }
        fleet.thresholds.removeAll { $0.change != nil }
        // The server's store is checked by `--verify` after the run, not by the run's figures.
        let serverThresholds = (thresholds + fleet.thresholds).filter { $0.metric.isServerTruth && $0.change == nil }
        fleet.thresholds.removeAll { $0.metric.isServerTruth }
        let thresholds = self.thresholds.filter { !$0.metric.isServerTruth && $0.change == nil }
        try checkVerify(serverThresholds: serverThresholds, fleet: fleet, shard: shard)
        for threshold in thresholds + changeThresholds {
            if let group = threshold.group, !fleet.groups.contains(where: { $0.name == group }) {
                throw CommandFailure(
                    "--threshold `\(threshold.expression)`: \(path) has no group \"\(group)\" (it has "
                        + fleet.groups.map { "\"\($0.name)\"" }.joined(separator: ", ") + ")",
                    exitCode: .usage)
            }
        }
        let fleetDevices = fleet.groups.reduce(0) { $0 + $1.count }
        // This process's share of the fleet: what its stores, connections and loops are sized by.
        let devices = fleet.groups.reduce(0) { $0 + shard.share(of: $1.count) }
        let loops =
            self.loops
            ?? RunOptions.defaultLoops(
                devices: max(1, fleet.mostDevices / shard.count), cores: ProcessInfo.processInfo.activeProcessorCount)
        // A shard's files (stores, devices.json, clock.json) live apart from the other shards',
        // so shards sharing one volume (compose's replicas) never touch each other's.
        let data = shard == .whole ? self.data : "\(self.data)/shard-\(shard.index)-of-\(shard.count)"
        let embedded = fleet.needsIngestURL && ingest == nil
        // Each loop has a transport of its own, which keeps its own idle connections.
        let idle = HTTPTransport.defaultMaxIdleConnections * loops
        let budget = DescriptorBudget.run(
            devices: devices, maxConnections: maxConnections, idleConnections: idle,
            adminConnections: admin.lowercased() == "off" ? nil : AdminServer.connectionLimit,
            embeddedReceiver: embedded)
        let openFiles = try FileLimit.ensure(
            budget, for: "beekon-fleet run",
            alternatives: " Or make the run need fewer: a lower --max-connections, or --admin off.")
        let logger = Logger(label: "beekon-fleet")
        logger.debug(
            "file descriptors",
            metadata: [
                "limit": "\(openFiles)", "needed": "\(budget.needed)",
                "openStores": "\(budget.openStores(limit: openFiles))",
            ])
        // The data folder's earlier run: resumed when it is this run's, else refused (or, as told,
        // resumed anyway or discarded), before anything is created.
        let identity = RunIdentity(fleet: fleet, ingest: ingest, inProcessReceiver: embedded)
        let earlier = try EarlierRunCheck.decide(
            data: data, identity: identity, fleet: fleet, seed: seed ?? fleet.seed, clockStart: clockStart,
            resume: resume, fresh: fresh)
        for line in earlier.lines { print("beekon-fleet: " + line) }
        // Then what creates files (the receiver's database) and binds ports; a start that fails
        // here removes what it created, and nothing that was there before.
        let footprint = StartFootprint(dataDirectory: data)
        var receiver: IngestReceiver?
        let runtime: FleetRuntime
        let adminServer: AdminServer?
        do {
            if embedded {
                receiver = try EmbeddedReceiver.start(
                    dataDirectory: data,
                    connections: DescriptorBudget.receiverConnections(
                        devices: devices, maxConnections: maxConnections, idleConnections: idle))
            }
            var options = RunOptions(
                dataDirectory: data, ingest: ingest ?? receiver?.url, warp: warp, seed: seed,
                realDurationMillis: duration,
                virtualDurationMillis: virtualDuration,
                routeFolder: URL(fileURLWithPath: path).deletingLastPathComponent().path,
                maxOpenStores: budget.openStores(limit: openFiles), maxConnections: maxConnections, caFile: caFile,
                insecure: insecure)
            // As asked for here; otherwise as the fleet file says (`auto` unless it says).
            options.timing = deterministic ? .modelled : timing
            options.thresholds = thresholds
            options.strictThresholds = strict
            options.loops = loops
            options.shard = shard
            options.startAt = startAt
            options.clockStart = clockStart
            options.sourceAddresses = sourceAddresses
            options.http2 = http2
            do {
                runtime = try FleetRuntime(fleet: fleet, options: options, logger: logger)
            } catch {
                throw CommandFailure("\(error)")
            }
            if let baselineSide {
                // The start as configured: a resumed run starts past its earlier one instead.
                let start = earlier.resumes ? nil : clockStart ?? fleet.clock.start
                let differ = RunComparison.mismatches(
                    baseline: baselineSide.record, name: fleet.name, groups: fleet.groups.map(\.name),
                    seed: seed ?? fleet.seed, startedAt: start, modelled: runtime.startsModelled)
                if !differ.isEmpty && !force {
                    throw CommandFailure(
                        "--baseline \(baselineSide.file): this run would not repeat it; they differ in "
                            + differ.joined(separator: "; ") + ". Run it as the baseline ran, or --force to compare "
                            + "anyway", exitCode: .usage)
                }
                for difference in differ { logger.warning("--baseline --force: the runs differ in \(difference)") }
            }
            do {
                try DataFolder.record(identity, in: data)
            } catch {
                throw CommandFailure("cannot write \(data)/\(RunIdentity.fileName): \(error.localizedDescription)")
            }
            adminServer = try RunAdmin.start(
                admin, token: adminToken, allowedHosts: adminAllowedHost, runtime: runtime, logger: logger)
        } catch {
            receiver?.stop()
            footprint.removeWhatThisStartCreated()
            throw error
        }
        defer { receiver?.stop() }
        defer { adminServer?.stop() }
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let interrupts = [SIGINT, SIGTERM].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { runtime.stop() }
            source.resume()
            return source
        }
        let split = loops > 1 ? " over \(loops) loops" : ""
        let part =
            shard == .whole ? "\(devices) devices" : "shard \(shard): \(devices) of the fleet's \(fleetDevices) devices"
        print("beekon-fleet: running \"\(fleet.name)\" (\(path)): \(part)\(split), data in \(data)")
        if let startAt {
            print("beekon-fleet: the clock starts at \(Timestamp.text(unixMillis: startAt)) (--start-at)")
        }
        if let receiver {
            print(
                "beekon-fleet: no ingest URL given, so the reference receiver runs in-process: "
                    + "ingest \(receiver.url), stats \(receiver.statsURL), "
                    + "database \(receiver.configuration.databasePath)"
            )
        }
        // The slow-server warning: when new slow answers came, at most once a real minute.
        var slowAnswersSeen = 0
        var lastWarning: Date?
        let abort = ThresholdAbort(runtime: runtime, thresholds: (thresholds + fleet.thresholds).filter(\.abortOnFail))
        defer { abort.cancel() }
        let end = try runtime.run(progressEverySeconds: 5) { metrics in
            print(ProgressLine.text(metrics))
            if metrics.slowAnswers > slowAnswersSeen, lastWarning.map({ Date().timeIntervalSince($0) >= 60 }) ?? true {
                let newly = metrics.slowAnswers - slowAnswersSeen
                logger.warning("\(ProgressLine.slowServerWarning(metrics, newly: newly, warp: runtime.snapshot.warp))")
                slowAnswersSeen = metrics.slowAnswers
                lastWarning = Date()
            }
        }
        for interrupt in interrupts { interrupt.cancel() }
        let sent = runtime.metrics.sent
        let snapshot = runtime.snapshot
        let results = snapshot.thresholds.check(snapshot.metrics, groups: snapshot.groups)
        let abortedBy = abort.cancel()
        var passed = abortedBy == nil && (!snapshot.thresholds.counted || results.allSatisfy(\.passed))
        var verification: Verification?
        var verifyFailed = false
        if verify {
            do throws(VerifyProblem) {
                verification = try Self.verification(data: data, command: storedCommand, thresholds: serverThresholds)
            } catch {
                logger.error("--verify: \(error)")
                verifyFailed = true
            }
            if let verification, !verification.passed { passed = false }
        }
        let stats = receiver?.stats()
        let receiverDuplicates = stats.map { FixAccount.Resent(batches: $0.duplicateBatches, fixes: $0.duplicateFixes) }
        let record = RunRecord(
            snapshot, shard: shard, end: end, abortedBy: abortedBy?.result.threshold.expression,
            receiverDuplicates: receiverDuplicates)
        let comparison = baselineSide.map { baselineSide in
            RunComparison(
                baseline: baselineSide,
                candidate: RunComparison.Side(
                    file: outputs.report ?? "this run", record: record,
                    truth: verification.map { RunComparison.Truth($0.result) }),
                thresholds: changeThresholds)
        }
        if let comparison, !comparison.passed { passed = false }
        let runReport = RunReportBody(
            snapshot, end: end, abortedBy: abortedBy.map { .init(expression: $0.result.threshold.expression) },
            exitCode: passed ? 0 : Int(RunExit.thresholdFailed),
            digest: sent.text,
            receiver: receiverDuplicates, shard: shard, serverTruth: verification.map(ServerTruthBody.init))
        for line in RunSummary.lines(runReport) { print("beekon-fleet: " + line) }
        // The verdict next, so the run's last lines stay its digest, its end and the receiver's.
        Self.verdict(snapshot.thresholds, results, metrics: snapshot.metrics)
        if let verification {
            for line in verification.result.lines(thresholds: verification.thresholds, source: verification.source) {
                print("beekon-fleet: " + line)
            }
        }
        if let comparison {
            print("beekon-fleet: compared with the baseline \(comparison.baseline.file):")
            for line in comparison.lines(all: false) { print("beekon-fleet: compare: " + line) }
        }
        if let abortedBy {
            print(
                "beekon-fleet: aborted at \(Timestamp.text(unixMillis: abortedBy.at)): "
                    + "`\(abortedBy.result.threshold.expression)` failed (\(abortedBy.result.valueText)) "
                    + "and has abortOnFail (exit 99)"
            )
        }
        print("beekon-fleet: sent \(sent.count) requests, digest \(sent.text)")
        let replay = ReplayLine.Run(
            fleetPath: path, seed: seed ?? fleet.seed, virtualStart: snapshot.startedAt, warp: warp ?? fleet.clock.warp,
            modelled: runtime.startsModelled, virtualDurationMillis: virtualDuration, devices: self.devices,
            ingest: ingest, shard: shard, reachedItsEnd: { if case .virtualTimeLimit = end { true } else { false } }(),
            resumed: earlier.resumes ? data : nil)
        print("beekon-fleet: " + ReplayLine.text(replay))
        print("beekon-fleet: done. \(ProgressLine.ending(end)) " + ProgressLine.text(runtime.metrics))
        if let stats {
            print(
                "beekon-fleet: the receiver stored \(stats.fixesStored) fixes in \(stats.batchesStored) batches; "
                    + "duplicates seen: \(stats.duplicateBatches) batches, \(stats.duplicateFixes) fixes")
        }
        // The report carries what `report merge` needs to merge it with the other shards'.
        var stored = runReport
        if let report = outputs.report {
            do throws(RunRecordProblem) {
                stored.mergeState = try record.mergeStateText()
            } catch {
                logger.error("--report \(report): \(error); written without it")
            }
        }
        // The run's verdict stands; a file missing is said, and exits 1 if it passed.
        let verdict = ReportOutputs.Verdict(
            title: "beekon-fleet run", results: results + (verification?.thresholds ?? []),
            counted: snapshot.thresholds.counted, passed: passed, comparison: comparison,
            seconds: snapshot.metrics.realSeconds)
        let failed = outputs.write(
            report: stored, page: runReport, snapshot: snapshot, chartsScript: chartsScript, verdict: verdict)
        for (_, error) in failed { logger.error("\(error)") }
        if linger, let adminServer {
            let interrupts = Interrupts()
            print("beekon-fleet: the run is over; the admin API stays up at \(adminServer.url) (--linger) until Ctrl-C")
            interrupts.wait()
        }
        if !passed { throw ExitCode(RunExit.thresholdFailed) }
        if !failed.isEmpty || verifyFailed { throw ExitCode.failure }
    }

    /// Refuses, before anything runs, what `--verify` cannot do: server thresholds without it,
    /// `--stored-cmd` without it, a shard (it holds a part of the fleet's devices), and a server
    /// other than the in-process receiver with no command to read its store.
    private func checkVerify(serverThresholds: [Threshold], fleet: FleetFile, shard: Shard) throws {
        if !verify {
            if let threshold = serverThresholds.first {
                throw CommandFailure(
                    "threshold `\(threshold.expression)`: the server's store is checked with --verify (or by "
                        + "`beekon-fleet verify` after the run)", exitCode: .usage)
            }
            if storedCommand != nil {
                throw CommandFailure("--stored-cmd is read by --verify; give it too", exitCode: .usage)
            }
            return
        }
        if shard != .whole {
            throw CommandFailure(
                "--verify with --shard: a shard holds only its part of the fleet's devices; once every shard is "
                    + "done, run `beekon-fleet verify --data DATA` on the folder they share", exitCode: .usage)
        }
        if storedCommand == nil, !(fleet.needsIngestURL && ingest == nil) {
            throw CommandFailure(
                "--verify against your own server needs its rows: give --stored-cmd, a command that prints them "
                    + "(install_id,fix_id), e.g. --stored-cmd \"psql -At -F, -c 'select install_id, id from "
                    + "locations'\"", exitCode: .usage)
        }
        for threshold in serverThresholds {
            if let group = threshold.group, !fleet.groups.contains(where: { $0.name == group }) {
                throw CommandFailure(
                    "--threshold `\(threshold.expression)`: the fleet has no group \"\(group)\"", exitCode: .usage)
            }
        }
    }

    /// The run's `verify`: its data folder's devices against the in-process receiver's rows, or
    /// those `command` prints (run by /bin/sh; a command that fails gives no verdict).
    static func verification(data: String, command: String?, thresholds: [Threshold]) throws(VerifyProblem)
        -> Verification
    {
        let folders = try RunFolder.find(data)
        guard let command else {
            return try Verification(folders: folders, rows: [.runReceivers], thresholds: thresholds, examples: 5)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let output = Pipe()
        process.standardOutput = output
        do {
            try process.run()
        } catch {
            throw VerifyProblem("--stored-cmd could not start: \(error.localizedDescription)")
        }
        let verification: Verification
        do throws(VerifyProblem) {
            verification = try Verification(
                folders: folders, rows: [.stream(output.fileHandleForReading, name: "--stored-cmd")],
                thresholds: thresholds, examples: 5)
        } catch {
            process.terminate()
            process.waitUntilExit()
            throw error
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw VerifyProblem(
                "--stored-cmd `\(command)` exited \(process.terminationStatus): no verdict on the server's store")
        }
        return verification
    }

    /// Refuses, before anything runs, a file path whose folder does not exist or cannot be written.
    static func checkWritable(_ path: String, for option: String) throws {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) else {
            throw CommandFailure("\(option) \(path): the folder \(folder) does not exist", exitCode: .usage)
        }
        guard isFolder.boolValue else {
            throw CommandFailure("\(option) \(path): \(folder) is a file, not a folder", exitCode: .usage)
        }
        guard access(folder, W_OK) == 0 else {
            throw CommandFailure("\(option) \(path): the folder \(folder) cannot be written", exitCode: .usage)
        }
        var isExisting: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isExisting), isExisting.boolValue {
            throw CommandFailure("\(option) \(path) is a folder; expected a file", exitCode: .usage)
        }
    }

    /// The thresholds checked against the run, printed ✓/✗ with their values, and whether the
    /// run passed: given ones (flags, then the fleet file's) always count; with none given, the
    /// defaults are checked and count only with `--strict`.
    static func verdict(_ set: ThresholdSet, _ results: [ThresholdResult], metrics: FleetMetrics) {
        print(
            set.areDefaults
                ? "beekon-fleet: thresholds (the defaults: none was given; "
                    + (set.counted ? "--strict makes them count):" : "they count only with --strict):")
                : "beekon-fleet: thresholds:")
        for result in results { print("  " + result.line) }
        let uploads = metrics.uploads.overall
        if !uploads.keys.contains(where: \.isSuccess) {
            let tried = uploads.values.reduce(0) { $0 + $1.count }
            print(
                tried == 0
                    ? "beekon-fleet: no upload succeeded: none was sent"
                    : "beekon-fleet: no upload succeeded: \(tried) uploads, none answered 2xx")
        }
        let failed = results.filter { !$0.passed }.count
        guard set.counted, failed > 0 else {
            let met = results.count - failed
            print("beekon-fleet: \(set.counted ? "passed" : "thresholds"): \(met) of \(results.count) thresholds met")
            return
        }
        print("beekon-fleet: failed: \(failed) of \(results.count) thresholds not met (exit 99)")
    }
}
