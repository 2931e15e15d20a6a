import ArgumentParser
import BeekonDevice
import BeekonNet
import BeekonStore
import FleetCommandLine
import FleetDescription
import FleetEngine
import FleetReport
import Foundation
import HTTPTypes

/// `beekon-bench compare`: `beekon-fleet report compare` of two reports of a 100,000-device run
/// over a virtual week, against issue #37's 2 s.
struct BenchCompare: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Time `beekon-fleet report compare` of two 100,000-device reports against 2 s.",
        discussion: """
            Makes two reports as `run --report FILE` writes them at a run's end (the report and its \
            merge_state), from the metrics a run of --devices devices in --groups groups over \
            --virtual-days virtual days records through the engine's own record calls: \
            --uploads-per-device uploads a device, each with its outcome (mostly 200; 503, 500, 429, \
            400, timeouts, resets, refused), its latency and the server's, 1 to 8 fixes a device \
            admitted and (on a 2xx) acknowledged with their ages, every request in the digest, \
            devices by state per group, the run's history rows, and --faults faults (network offline, \
            latency, timeouts, …) that take 5% of the devices each, with their drains. The candidate \
            is the same run with the server 20% slower and 1.5 times the 503s. Then runs the \
            `beekon-fleet` beside this executable, `report compare BASE CANDIDATE --threshold \
            'server.latency.p99 < +10%'`, --repeat times (its exit 99, the threshold failed, is \
            expected) and prints its best and median wall time and peak RSS (wait4's ru_maxrss) \
            against the target of 2 s. The setup is timed apart. See docs/benchmarks.md.
            """)

    @Flag(help: "Print the figures as one JSON object.")
    var json = false

    /// `--devices`.
    static let devicesRange = NumberRange.integer(1...1_000_000, unit: "devices")
    /// `--groups`.
    static let groupsRange = NumberRange.integer(1...1000, unit: "groups")
    /// `--uploads-per-device`.
    static let uploadsRange = NumberRange.integer(1...1000, unit: "uploads")
    /// `--faults`.
    static let faultsRange = NumberRange.integer(0...1000, unit: "faults")
    /// `--virtual-days`.
    static let daysRange = NumberRange.integer(1...366, unit: "days")
    /// `--repeat`.
    static let repeatRange = NumberRange.integer(1...100, unit: "runs")

    @Option(help: "Devices in the run, 1 to 1000000.", transform: FlagNumber.integer(devicesRange))
    var devices = 100_000

    @Option(help: "Device groups, 1 to 1000 (at most --devices).", transform: FlagNumber.integer(groupsRange))
    var groups = 20

    @Option(help: "Uploads a device sends, 1 to 1000.", transform: FlagNumber.integer(uploadsRange))
    var uploadsPerDevice = 10

    @Option(help: "Faults on the run's timeline, 0 to 1000.", transform: FlagNumber.integer(faultsRange))
    var faults = 50

    @Option(
        help: "Virtual days the run lasted (its history rows), 1 to 366.", transform: FlagNumber.integer(daysRange))
    var virtualDays = 7

    @Option(
        name: .customLong("repeat"), help: "Runs of report compare to time, 1 to 100.",
        transform: FlagNumber.integer(repeatRange))
    var repeats = 3

    @Option(help: "Seed of the made-up run.")
    var seed: UInt64 = 37

    @Option(
        help: ArgumentHelp("Where to write the two reports (kept); a new temporary folder by default, removed after."))
    var directory: String?

    /// Issue #37's target for the whole command.
    static let targetSeconds = 2.0
    /// The threshold compare is given: the candidate's server is 20% slower, so it fails (exit 99).
    static let threshold = "server.latency.p99 < +10%"

    func validate() throws {
        guard groups <= devices else {
            throw ValidationError("--groups \(groups) is more than --devices \(devices); expected a device a group.")
        }
    }

    func run() throws {
        let folder = try BenchFolder(directory)
        defer { folder.remove() }
        let plan = SyntheticRun(
            devices: devices, groups: groups, uploadsPerDevice: uploadsPerDevice, faults: faults,
            virtualDays: virtualDays, seed: seed)
        let basePath = folder.path("baseline.json")
        let candidatePath = folder.path("candidate.json")

        let setupStart = ContinuousClock.now
        let baseline = try plan.make(.baseline)
        let baseWritten = try Self.write(baseline, to: basePath)
        let candidate = try plan.make(.candidate)
        let candidateWritten = try Self.write(candidate, to: candidatePath)
        let setupSeconds = (ContinuousClock.now - setupStart).seconds

        let executable = try ReceiverChild.executable()
        var runs: [CompareRun] = []
        for _ in 0..<repeats {
            runs.append(try Self.compare(executable: executable, basePath, candidatePath, folder: folder))
        }
        let phases = try Self.phases(basePath, candidatePath, repeats: repeats)
        let walls = runs.map(\.wallSeconds).sorted()
        let best = runs.min { $0.wallSeconds < $1.wallSeconds }!
        let median =
            walls.count % 2 == 1 ? walls[walls.count / 2] : (walls[walls.count / 2 - 1] + walls[walls.count / 2]) / 2
        let peakRSS = runs.map(\.peakRSSMiB).max() ?? 0
        let met = best.wallSeconds <= Self.targetSeconds
        let metrics = baseline.snapshot.metrics

        var report = BenchReport(title: "beekon-bench compare")
        report.add("devices", "devices in each run", Double(devices), unit: "")
        report.add("groups", "groups", Double(groups), unit: "")
        report.add(
            "uploads", "uploads in each run", Double(metrics.uploads.overall.values.map(\.count).reduce(0, +)), unit: ""
        )
        report.add("history_rows", "history rows", Double(metrics.history.rows.count), unit: "")
        report.add("history_row_s", "    each row", Double(metrics.history.widthMillis) / 1000, unit: "s")
        report.add("faults", "faults (with drains)", Double(metrics.timeline.count), unit: "")
        report.add("setup_s", "setup: both reports (not the figure)", setupSeconds, unit: "s")
        report.add("baseline_mib", "baseline report file", Self.mebibytes(baseWritten.fileBytes), unit: "MiB")
        report.add("candidate_mib", "candidate report file", Self.mebibytes(candidateWritten.fileBytes), unit: "MiB")
        report.add(
            "merge_state_json_mib", "    its merge_state inflated (JSON)",
            Self.mebibytes(candidateWritten.stateJSONBytes), unit: "MiB")
        report.add("compare_best_s", "compare: best wall time", best.wallSeconds, unit: "s")
        report.add("compare_median_s", "    median wall time", median, unit: "s")
        report.add("compare_cpu_s", "    CPU of the best (user + system)", best.cpuSeconds, unit: "s")
        report.add("compare_rss_mib", "    peak RSS (ru_maxrss, the largest)", peakRSS, unit: "MiB")
        report.add("compare_lines", "    lines printed", Double(best.lines), unit: "")
        report.add("read_s", "in this process, best: read one report", phases.readSeconds, unit: "s")
        report.add("inflate_s", "    of which the file's JSON, base64, gunzip", phases.inflateSeconds, unit: "s")
        report.add("comparison_s", "    compare the two records", phases.comparisonSeconds, unit: "s")
        report.add("target_met", "best ≤ 2 s (1 met, 0 not)", met ? 1 : 0, unit: "")
        report.note(
            "target (best ≤ \(String(format: "%.0f", Self.targetSeconds)) s): \(met ? "met" : "not met"): "
                + "runs " + runs.map { String(format: "%.2f", $0.wallSeconds) }.joined(separator: " · ") + " s")
        report.note(
            "`report compare BASE CANDIDATE --threshold '\(Self.threshold)'` exited \(best.exitCode)"
                + (best.exitCode == Int32(RunExit.thresholdFailed) ? " (the threshold failed, as expected)" : ""))
        report.note(
            "\(uploadsPerDevice) uploads a device, \(faults) faults, \(virtualDays) virtual days, seed \(seed); "
                + "folder \(folder.root)" + (directory == nil ? " (removed after)" : "") + "; "
                + BenchMachine.note())
        print(report.render(json: json))
    }

    /// What one run of `report compare` measured.
    struct CompareRun {
        var wallSeconds: Double
        var cpuSeconds: Double
        var peakRSSMiB: Double
        var exitCode: Int32
        var lines: Int
    }

    /// Runs `beekon-fleet report compare` on the two reports once; 0 and 99 (a threshold not met)
    /// are its answers, anything else a failure with its standard error.
    static func compare(executable: String, _ base: String, _ candidate: String, folder: BenchFolder) throws
        -> CompareRun
    {
        let outputPath = folder.path("compare.out")
        let errorPath = folder.path("compare.err")
        let start = ContinuousClock.now
        let process = try ChildProcess(
            executable, ["report", "compare", base, candidate, "--threshold", threshold], outputPath: outputPath,
            errorPath: errorPath)
        let (status, usage) = process.waitForExitWithUsage()
        let wallSeconds = (ContinuousClock.now - start).seconds
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        let errors = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
        let signalled = status & 0x7F
        let exitCode = (status >> 8) & 0xFF
        guard signalled == 0 else {
            throw CommandFailure("beekon-fleet report compare ended by signal \(signalled):\n\(errors)")
        }
        guard exitCode == 0 || exitCode == Int32(RunExit.thresholdFailed) else {
            throw CommandFailure("beekon-fleet report compare exited \(exitCode):\n\(errors)")
        }
        let cpu =
            Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
            + Double(usage.ru_stime.tv_usec) / 1e6
        return CompareRun(
            wallSeconds: wallSeconds, cpuSeconds: cpu, peakRSSMiB: Double(usage.ru_maxrss) / 1024, exitCode: exitCode,
            lines: output.split(separator: "\n").count)
    }

    /// Where compare's time goes, timed in this process with the same calls: reading one report
    /// (`RunRecord.read`: base64, gunzip, JSON), and comparing the two records. Best of `repeats`.
    struct Phases {
        var readSeconds = Double.infinity
        var inflateSeconds = Double.infinity
        var comparisonSeconds = Double.infinity
    }

    /// A report's `merge_state`, as `RunRecord.read` finds it.
    private struct StoredState: Decodable {
        var mergeState: String

        enum CodingKeys: String, CodingKey {
            case mergeState = "merge_state"
        }
    }

    static func phases(_ base: String, _ candidate: String, repeats: Int) throws -> Phases {
        let baseText = try Data(contentsOf: URL(fileURLWithPath: base))
        let candidateText = try Data(contentsOf: URL(fileURLWithPath: candidate))
        let baseRecord = try RunRecord.read(report: baseText, file: base)
        var phases = Phases()
        for _ in 0..<repeats {
            var began = ContinuousClock.now
            let record = try RunRecord.read(report: candidateText, file: candidate)
            phases.readSeconds = min(phases.readSeconds, (ContinuousClock.now - began).seconds)

            began = ContinuousClock.now
            let state = try JSONDecoder().decode(StoredState.self, from: candidateText).mergeState
            guard let zipped = Data(base64Encoded: state) else { throw CommandFailure("\(candidate): no merge_state") }
            _ = try GzipDecompressor(maxOutputBytes: 1 << 30).decompress([UInt8](zipped))
            phases.inflateSeconds = min(phases.inflateSeconds, (ContinuousClock.now - began).seconds)

            began = ContinuousClock.now
            let rows = MetricComparison.all(
                baseline: baseRecord.metrics, baselineGroups: baseRecord.groups, candidate: record.metrics,
                candidateGroups: record.groups)
            _ = (baseRecord.metrics.sent.text, record.metrics.sent.text, rows.count)
            phases.comparisonSeconds = min(phases.comparisonSeconds, (ContinuousClock.now - began).seconds)
        }
        return phases
    }

    /// The sizes of a report written.
    struct Written {
        var fileBytes: Int
        /// Its `merge_state`'s JSON, inflated: what compare decodes.
        var stateJSONBytes: Int
    }

    /// Writes the report of `run` to `path` as `run --report FILE` does at a run's end.
    static func write(_ run: SyntheticRun.Made, to path: String) throws -> Written {
        let stored = try run.reportBody()
        let text = stored.fileText
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let zipped = Data(base64Encoded: stored.mergeState ?? "") ?? Data()
        let json = try GzipDecompressor(maxOutputBytes: 1 << 30).decompress([UInt8](zipped))
        return Written(fileBytes: text.utf8.count, stateJSONBytes: json.count)
    }

    private static func mebibytes(_ bytes: Int) -> Double {
        Double(bytes) / 1_048_576
    }

}

/// A made-up run of a fleet, seeded: the metrics the engine would have recorded, filled through
/// its own record calls, for `beekon-bench compare`'s two reports. The same plan and variant make
/// the same metrics; the two variants draw the same numbers, so they differ only by the variant.
struct SyntheticRun {
    var devices: Int
    var groups: Int
    var uploadsPerDevice: Int
    var faults: Int
    var virtualDays: Int
    var seed: UInt64

    /// How a run's server behaved: the candidate's is slower and answers 503 more often.
    struct Variant {
        var serverSlowdown: Double
        /// 503s per 10,000 uploads.
        var unavailablePer10k: Int

        static let baseline = Variant(serverSlowdown: 1, unavailablePer10k: 100)
        static let candidate = Variant(serverSlowdown: 1.2, unavailablePer10k: 150)
    }

    /// What a run leaves for its report.
    struct Made {
        var snapshot: FleetSnapshot
        /// Counted, not listed: the snapshot has no device table (as a merged report's).
        var devicesByGroup: [String: [DeviceState: Int]]
        var end: RunEnd

        /// The report `run --report FILE` writes at the run's end, with its `merge_state`.
        func reportBody() throws -> RunReportBody {
            let results = snapshot.thresholds.check(snapshot.metrics, groups: snapshot.groups)
            let passed = !snapshot.thresholds.counted || results.allSatisfy(\.passed)
            var stored = RunReportBody(
                snapshot, end: end, abortedBy: nil, exitCode: passed ? 0 : Int(RunExit.thresholdFailed),
                digest: snapshot.metrics.sent.text, receiver: nil, shard: .whole, devicesByGroup: devicesByGroup)
            var record = RunRecord(snapshot, shard: .whole, end: end, abortedBy: nil)
            record.devicesByGroup = devicesByGroup
            stored.mergeState = try record.mergeStateText()
            return stored
        }
    }

    /// Where the run's clock starts: 2026-06-15, as the other benches' runs.
    static let start: Int64 = 1_781_481_600_000
    /// The warp the run is said to have run at: its real seconds are its virtual ones ÷ 60.
    static let warp = 60.0
    /// A fault takes the devices whose index has its number's residue: one in 20.
    static let faultShare = 20
    static let faultActions: [FleetAction.Name] = [
        .networkOffline, .latency, .timeouts, .locationServicesOff, .revokePermission,
    ]
    /// Devices by state, per 10,000.
    static let statesPer10k: [(DeviceState, Int)] = [
        (.sdk(.tracking), 8_500), (.sdk(.idle), 500), (.sdk(.stopped), 200), (.sdk(.paused(.permissionRevoked)), 200),
        (.sdk(.paused(.locationDisabled)), 200), (.dead, 300), (.storeError, 100),
    ]

    var durationMillis: Int64 { Int64(virtualDays) * 86_400_000 }
    var uploads: Int { devices * uploadsPerDevice }
    var groupNames: [String] { (0..<groups).map { "group-\(String(format: "%02d", $0 + 1))" } }

    /// A fault of the timeline: when it is on, and what it does.
    struct FaultWindow {
        var number: Int
        var action: FleetAction.Name
        var start: Int64
        var end: Int64
        var applied: Int
    }

    /// `faults` faults spread evenly over the run, each 10 to 30 minutes long (never more than
    /// half the gap to the next).
    var faultWindows: [FaultWindow] {
        guard faults > 0 else { return [] }
        let spacing = durationMillis / Int64(faults)
        return (0..<faults).map { number in
            let start = Self.start + Int64(number) * spacing + spacing / 2
            let length = min(Int64(10 + 5 * (number % 5)) * 60_000, spacing / 2)
            let residue = number % Self.faultShare
            let applied = residue < devices ? (devices - residue + Self.faultShare - 1) / Self.faultShare : 0
            return FaultWindow(
                number: number, action: Self.faultActions[number % Self.faultActions.count], start: start,
                end: start + length, applied: applied)
        }
    }

    /// The state of a device whose draw (0..<10,000) is `draw`.
    static func state(_ draw: Int) -> DeviceState {
        var left = draw
        for (state, share) in statesPer10k {
            if left < share { return state }
            left -= share
        }
        return .sdk(.tracking)
    }

    /// A store's ledger change.
    static func change(admitted: Int = 0, acknowledged: Int = 0, rejected: Int = 0, pending: Int = 0, lost: Int = 0)
        -> FixLedger
    {
        FixLedger(
            admitted: admitted, acknowledged: acknowledged, rejected: rejected, pending: pending, expired: 0,
            deleted: 0, lost: lost)
    }

    /// The outcome a draw (0..<10,000) gives an upload no fault touches.
    static func outcome(_ draw: Int, _ variant: Variant) -> TransferOutcome {
        let rare: [(TransferOutcome, Int)] = [
            (.status(503), variant.unavailablePer10k), (.status(500), 10), (.status(429), 30), (.status(400), 5),
            (.failed(.timeout), 20), (.failed(.reset), 10), (.failed(.refused), 5),
        ]
        var left = draw
        for (outcome, share) in rare {
            if left < share { return outcome }
            left -= share
        }
        return .status(200)
    }

    /// The run's metrics, as the engine records them: every upload through `UploadStats`,
    /// `GroupUploads`, the histograms, `RunHistory` and `RequestDigest`; every fix through the
    /// fleet's and its group's `FixAccount` and the history.
    func make(_ variant: Variant) throws -> Made {
        var rng = SplitMix64(seed: seed)
        let names = groupNames
        var metrics = FleetMetrics()
        metrics.history = RunHistory(start: Self.start)
        metrics.fixesByGroup = Array(repeating: FixAccount(), count: groups)
        metrics.uploadsByGroup = Array(repeating: GroupUploads(), count: groups)
        var openDrains: [Int] = []

        func account(_ change: FixLedger, group: Int, at instant: Int64) {
            metrics.fixes.add(change)
            metrics.fixesByGroup[group].add(change)
            metrics.fixes.handedToStores += change.admitted
            metrics.fixesByGroup[group].handedToStores += change.admitted
            metrics.history.recordLedgerChange(
                admitted: change.admitted, acknowledged: change.acknowledged, pending: change.pending, at: instant)
            // A drain ends at the first instant the backlog is back to where its fault found it.
            openDrains.removeAll { index in
                guard metrics.fixes.ledger.pending <= metrics.drains[index].pendingBefore else { return false }
                metrics.drains[index].drainMillis = max(0, instant - metrics.drains[index].endedAt)
                return true
            }
        }

        var devicesByGroup: [String: [DeviceState: Int]] = [:]
        let ids = (0..<devices).map { "\(names[$0 % groups])-\(String(format: "%05d", $0 / groups + 1))" }
        for device in 0..<devices {
            let state = Self.state(Int(rng.next() % 10_000))
            metrics.devicesByState[state, default: 0] += 1
            devicesByGroup[names[device % groups], default: [:]][state, default: 0] += 1
            if state == .storeError {
                // Its store filled up: one fix admitted and lost.
                metrics.storeErrorsByCause["full", default: 0] += 1
                metrics.fixesLostByCause["full", default: 0] += 1
                account(
                    Self.change(admitted: 1, lost: 1), group: device % groups,
                    at: Self.start + Int64(rng.next() % UInt64(durationMillis)))
            }
        }

        let windows = faultWindows
        var nextFault = 0
        var underway: (window: FaultWindow, pendingBefore: Int)?
        func beginOrEndFaults(until instant: Int64) {
            while true {
                if let current = underway, instant >= current.window.end {
                    let pending = metrics.fixes.ledger.pending
                    metrics.drains.append(
                        FaultDrain(
                            fault: current.window.number, source: .timeline, action: current.window.action,
                            startedAt: current.window.start, endedAt: current.window.end,
                            pendingBefore: current.pendingBefore, pendingAtEnd: pending,
                            drainMillis: pending <= current.pendingBefore ? 0 : nil))
                    if pending > current.pendingBefore { openDrains.append(metrics.drains.count - 1) }
                    underway = nil
                } else if underway == nil, nextFault < windows.count, instant >= windows[nextFault].start {
                    let window = windows[nextFault]
                    metrics.timeline.append(
                        TimelineFault(
                            fault: window.number, source: .timeline, action: window.action, startedAt: window.start,
                            endsAt: window.end, applied: window.applied))
                    underway = (window, metrics.fixes.ledger.pending)
                    nextFault += 1
                } else {
                    return
                }
            }
        }

        // One request's head for all: the digest folds the device, the head and the body.
        var request = OutboundRequest(
            url: "https://ingest.example/v1/locations",
            headerFields: [.contentType: "application/json", .contentEncoding: "gzip", .authorization: "Bearer bench"],
            connectionKey: "")
        let total = uploads
        let step = Double(durationMillis) / Double(total)
        let realSeconds = Double(durationMillis) / 1000 / Self.warp
        var pending = [Int](repeating: 0, count: devices)
        var lastAcknowledged = [Int64](repeating: Self.start, count: devices)
        for index in 0..<total {
            let at = Self.start + Int64(Double(index) * step)
            beginOrEndFaults(until: at)
            let device = index % devices
            let group = device % groups
            // Every draw is made whatever the outcome, so both variants draw the same numbers.
            let fixes = 1 + Int(rng.next() % 8)
            let draw = Int(rng.next() % 10_000)
            let serverDraw = Double(rng.next() >> 11) / Double(1 << 53)
            let networkDraw = Double(rng.next() >> 11) / Double(1 << 53)
            let lateness = Double(rng.next() % 3000) / 1000

            account(Self.change(admitted: fixes, pending: fixes), group: group, at: at - 1000)
            pending[device] += fixes
            let fault = underway.flatMap { device % Self.faultShare == $0.window.number % Self.faultShare ? $0 : nil }
            var outcome = Self.outcome(draw, variant)
            if fault?.window.action == .networkOffline { outcome = .offline }
            if fault?.window.action == .timeouts { outcome = .injectedTimeout }
            // The server 8 to 200 ms, log-uniform; the network 20 to 60 ms each way.
            let server = 8 * pow(25, serverDraw) * variant.serverSlowdown
            let network = 20 + 40 * networkDraw
            var serverMillis: Double?
            let latency: Double
            switch outcome {
            case .status:
                serverMillis = server
                latency = server + network + (fault?.window.action == .latency ? 800 : 0)
            case .failed(.timeout), .injectedTimeout: latency = 30_000
            case .failed(.refused): latency = network / 20
            case .failed: latency = network * 4
            default: latency = 0
            }
            if outcome == .failed(.timeout), draw % 3 == 0 {
                // Its 2xx came after the device gave up: the fixes go again.
                metrics.answersAfterTimeout += 1
                metrics.fixes.unheardAcknowledgements.batches += 1
                metrics.fixes.unheardAcknowledgements.fixes += pending[device]
                metrics.fixesByGroup[group].unheardAcknowledgements.batches += 1
                metrics.fixesByGroup[group].unheardAcknowledgements.fixes += pending[device]
            }

            if outcome != .offline {
                metrics.batchesSent += 1
                // A stand-in body: the upload's number and its fixes (folding whole batches would only cost time).
                request.body = (0..<8).map { UInt8(truncatingIfNeeded: index >> ($0 * 8)) } + [UInt8(fixes)]
                request.connectionKey = ids[device]
                metrics.sent.add(device: ids[device], request: request)
            }
            if let serverMillis {
                metrics.serverLatency.record(serverMillis)
                metrics.uploadsByGroup[group].serverLatency.record(serverMillis)
            }
            metrics.latency.record(latency)
            // All in one real second: the live view's per-second buckets are not in a report, and
            // a new bucket each second would grow a histogram to 30 s 10,000 times over (most of the setup).
            metrics.uploads.record(outcome, latencyMillis: latency, serverMillis: serverMillis, realNanos: 0)
            metrics.uploadsByGroup[group].record(outcome, latencyMillis: latency, serverMillis: serverMillis)
            metrics.history.recordUpload(outcome, latencyMillis: latency, serverMillis: serverMillis, at: at)
            metrics.timerLateness.record(lateness)

            let batch = pending[device]
            if outcome.isSuccess {
                account(Self.change(acknowledged: batch, pending: -batch), group: group, at: at)
                // The batch's fixes were made evenly since the device's last acknowledgement.
                let since = Double(at - lastAcknowledged[device])
                for fix in 0..<batch {
                    let age = since * Double(fix + 1) / Double(batch) + latency
                    metrics.fixes.ageAtAcknowledgement.record(age)
                    metrics.fixesByGroup[group].ageAtAcknowledgement.record(age)
                    metrics.history.recordAge(age, at: at)
                }
                lastAcknowledged[device] = at
                pending[device] = 0
            } else if outcome == .status(400) {
                account(Self.change(rejected: batch, pending: -batch), group: group, at: at)
                pending[device] = 0
            }
        }
        let end = Self.start + durationMillis
        beginOrEndFaults(until: end)

        // A token refresh a device a day, a few refused.
        metrics.refreshesSent = devices * virtualDays
        metrics.refreshesByOutcome = [.status(200): devices * virtualDays - devices / 100, .status(401): devices / 100]
        metrics.geofenceEvents = total / 7
        metrics.devices = devices
        metrics.virtualNow = end
        metrics.realSeconds = realSeconds

        var snapshot = FleetSnapshot()
        snapshot.name = "bench-compare"
        snapshot.seed = seed
        snapshot.startedAt = Self.start
        snapshot.virtualNow = end
        snapshot.warp = Self.warp
        snapshot.groups = names
        snapshot.thresholds = ThresholdSet(
            given: [try Threshold.read("upload.errors.rate < 5%"), try Threshold.read("upload.latency.p99 < 1s")],
            strict: false)
        snapshot.metrics = metrics
        return Made(snapshot: snapshot, devicesByGroup: devicesByGroup, end: .virtualTimeLimit(millis: durationMillis))
    }
}
