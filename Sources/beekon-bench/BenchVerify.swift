import ArgumentParser
import BeekonDevice
import BeekonStore
import FleetCommandLine
import FleetDescription
import FleetEngine
import FleetRuntime
import Foundation

/// `beekon-bench verify`: `beekon-fleet verify` over a run of ten million fixes, its wall time,
/// peak RSS and CPU against the issue's limits, and its figures against what was planted.
struct BenchVerify: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Time `beekon-fleet verify` over 10 million fixes; check it finds exactly what was planted.",
        discussion: """
            Makes a run's data folder as a run leaves it (devices.json, run-identity.json, one real \
            device store a device) holding --fixes fixes spread over --devices devices, each recorded in \
            its store as told in acknowledged batches of --batch fixes, plus --pending real fixes a device \
            still pending. Then runs the `beekon-fleet` beside this executable, `verify --data FOLDER \
            --stored - --json`, and streams the server's rows (CSV install_id,fix_id) into its standard \
            input as it reads them: every acknowledged fix once, in a seeded server-like order (batches \
            interleaved across devices, shuffled within a window), with problems planted: 0.01 % of \
            the acknowledged fixes left out (lost), 0.01 % written twice (duplicates), 0.001 % under \
            another device's install id (misattributed), one foreign row in 100,000, and the first \
            pending fix of every tenth device (stored though unheard). Fails unless verify's figures are \
            exactly these. Prints verify's wall time, peak RSS (wait4's ru_maxrss), CPU and fixes/s \
            against the limits of 60 s and 1 GiB. The setup is timed apart; with --directory the folder \
            is kept, and a later run with the same --fixes, --devices, --batch, --pending and --seed \
            reuses it. See docs/benchmarks.md.
            """)

    @Flag(help: "Print the figures as one JSON object.")
    var json = false

    /// `--fixes`.
    static let fixesRange = NumberRange.integer(1000...100_000_000, unit: "fixes")
    /// `--batch`.
    static let batchRange = NumberRange.integer(1...10_000, unit: "fixes")
    /// `--pending`.
    static let pendingRange = NumberRange.integer(0...1000, unit: "fixes")

    @Option(
        help: "Acknowledged fixes over all devices (the server's rows), 1000 to 100000000.",
        transform: FlagNumber.integer(fixesRange))
    var fixes = 10_000_000

    @Option(help: "Devices (one store each), 1 to 100000.", transform: FlagNumber.integer(DeviceGroup.countRange))
    var devices = 1000

    @Option(help: "Fixes a told batch, 1 to 10000.", transform: FlagNumber.integer(batchRange))
    var batch = 50

    @Option(help: "Fixes still pending on each device, 0 to 1000.", transform: FlagNumber.integer(pendingRange))
    var pending = 3

    @Option(help: "Seed of the ids and of the server's order.")
    var seed: UInt64 = 2026

    @Option(
        help: ArgumentHelp(
            "Where to put the run folder, as DIRECTORY/run (kept; replaced unless it was made by the same "
                + "flags); a new temporary folder by default, removed after."))
    var directory: String?

    /// The issue's limits: ten million fixes in 60 s and 1 GiB.
    static let wallLimitSeconds = 60.0
    static let rssLimitMiB = 1024.0

    func validate() throws {
        guard fixes >= devices else {
            throw ValidationError("--fixes \(fixes) is below --devices \(devices); expected at least a fix a device.")
        }
    }

    func run() throws {
        let folder = try BenchFolder(directory)
        defer { folder.remove() }
        let data = folder.path("run")
        let plan = VerifyPlan(
            fixes: fixes, devices: devices, batch: batch, pending: pending, seed: seed)
        var report = BenchReport(title: "beekon-bench verify")

        let setupStart = ContinuousClock.now
        let reused = try plan.make(in: data)
        let setupSeconds = (ContinuousClock.now - setupStart).seconds
        let folderBytes = Self.bytes(under: data)

        let executable = try ReceiverChild.executable()
        let measured = try Self.measure(executable: executable, data: data, plan: plan, folder: folder)
        let expected = measured.planted.expected(plan)
        let mismatches = expected.compactMap { key, want -> String? in
            let got = measured.figures[key]
            return got == want ? nil : "\(key): verify said \(got.map(String.init) ?? "nothing"), planted \(want)"
        }.sorted()
        guard mismatches.isEmpty else {
            throw CommandFailure(
                "beekon-bench verify: verify's figures are not what was planted:\n  "
                    + mismatches.joined(separator: "\n  ") + "\nits output:\n\(measured.output)")
        }

        let fixesVerified = Double(plan.fixesTotal)
        let rssMiB = Double(measured.usage.ru_maxrss) / 1024
        report.add("fixes", "fixes verified (acknowledged + pending)", fixesVerified, unit: "")
        report.add("server_rows", "server rows streamed", Double(measured.planted.serverRows), unit: "")
        report.add("devices", "devices (one store each)", Double(devices), unit: "")
        report.add(
            "setup_s", reused ? "setup: the run folder (reused)" : "setup: the run folder (not the figure)",
            setupSeconds, unit: "s")
        report.add("folder_mib", "    its size on disk", Double(folderBytes) / 1_048_576, unit: "MiB")
        report.add("verify_wall_s", "verify: wall time", measured.wallSeconds, unit: "s")
        report.add("verify_rss_mib", "    peak RSS (ru_maxrss)", rssMiB, unit: "MiB")
        report.add("verify_cpu_s", "    CPU (user + system)", measured.cpuSeconds, unit: "s")
        report.add(
            "verify_fixes_per_s", "    fixes verified per second", fixesVerified / measured.wallSeconds, unit: "fixes/s"
        )
        report.add(
            "rows_first_read_s", "    first MiB of rows read at (stores read and indexed)", measured.firstReadSeconds,
            unit: "s")
        report.add("rows_all_written_s", "    last row written at", measured.feedSeconds, unit: "s")
        report.add("feed_cpu_s", "    CPU of the feed (this process)", measured.feedCPU, unit: "s")
        let wallMet = measured.wallSeconds <= Self.wallLimitSeconds
        let rssMet = rssMiB <= Self.rssLimitMiB
        report.add("wall_limit_met", "wall time ≤ 60 s (1 met, 0 not)", wallMet ? 1 : 0, unit: "")
        report.add("rss_limit_met", "peak RSS ≤ 1024 MiB (1 met, 0 not)", rssMet ? 1 : 0, unit: "")
        let planted = measured.planted
        report.note(
            "\(wallMet ? "✓" : "✗") wall \(String(format: "%.1f", measured.wallSeconds)) s of 60 s; "
                + "\(rssMet ? "✓" : "✗") RSS \(String(format: "%.0f", rssMiB)) MiB of 1024 MiB")
        report.note(
            "✓ verify found exactly what was planted: \(planted.lost) lost, \(planted.duplicates) duplicates, "
                + "\(planted.misattributed) misattributed, \(planted.foreign) foreign, \(planted.unheard) stored "
                + "though unheard, \(plan.fixes - planted.lost) acknowledged and stored, "
                + "\(plan.pendingTotal - planted.unheard) pending (exit \(measured.exitCode))")
        report.note(
            "\(devices) stores, batches of \(batch), \(pending) pending a device, seed \(seed); folder \(data)"
                + (directory == nil ? " (removed after)" : "") + "; "
                + BenchMachine.note())
        print(report.render(json: json))
    }

    /// What one run of `verify` measured.
    struct Measured {
        var wallSeconds: Double
        var cpuSeconds: Double
        var usage: rusage
        var exitCode: Int32
        /// Seconds from the start until verify had read its first MiB of rows (its index built).
        var firstReadSeconds: Double
        /// Seconds from the start until the last row was written and its standard input closed.
        var feedSeconds: Double
        var feedCPU: Double
        var planted: VerifyFeed.Planted
        var figures: [String: Int]
        var output: String
    }

    /// Runs `beekon-fleet verify` on `data`, its rows streamed into its standard input.
    static func measure(executable: String, data: String, plan: VerifyPlan, folder: BenchFolder) throws -> Measured {
        // A child that exits early must not end this process with SIGPIPE: the write says EPIPE.
        signal(SIGPIPE, SIG_IGN)
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            throw CommandFailure("beekon-bench verify: no pipe: \(String(cString: strerror(errno)))")
        }
        // Neither end is inherited as itself: the child gets the read end as its standard input
        // only, so the write end's close is its end of input.
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let outputPath = folder.path("verify.json")
        let errorPath = folder.path("verify.err")
        let start = ContinuousClock.now
        let process: ChildProcess
        do {
            process = try ChildProcess(
                executable, ["verify", "--data", data, "--stored", "-", "--json"], outputPath: outputPath,
                errorPath: errorPath, input: ends[0])
        } catch {
            close(ends[0])
            close(ends[1])
            throw error
        }
        close(ends[0])
        let cpuBefore = ProcessTimes.cpuSeconds()
        var feed = VerifyFeed(plan: plan, descriptor: ends[1])
        let fed = Result { try feed.write() }
        close(ends[1])
        let feedSeconds = (ContinuousClock.now - start).seconds
        let feedCPU = ProcessTimes.cpuSeconds() - cpuBefore
        let (status, usage) = process.waitForExitWithUsage()
        let wallSeconds = (ContinuousClock.now - start).seconds
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        let errors = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
        let signalled = status & 0x7F
        let exitCode = (status >> 8) & 0xFF
        guard signalled == 0 else {
            throw CommandFailure("beekon-fleet verify ended by signal \(signalled):\n\(errors)")
        }
        if case .failure(let error) = fed {
            throw CommandFailure("beekon-bench verify: writing the rows failed: \(error)\n\(errors)")
        }
        guard let body = try? JSONDecoder().decode(VerifyBody.self, from: Data(output.utf8)) else {
            throw CommandFailure("beekon-fleet verify (exit \(exitCode)) printed no figures:\n\(output)\n\(errors)")
        }
        var figures = body.fixes
        figures["server_rows"] = body.serverRows
        figures["devices"] = body.devices
        figures["devices_without_told"] = body.devicesWithoutTold
        figures["exit"] = Int(exitCode)
        let cpu =
            Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
            + Double(usage.ru_stime.tv_usec) / 1e6
        return Measured(
            wallSeconds: wallSeconds, cpuSeconds: cpu, usage: usage, exitCode: exitCode,
            firstReadSeconds: feed.firstRead.map { ($0 - start).seconds } ?? feedSeconds, feedSeconds: feedSeconds,
            feedCPU: feedCPU, planted: feed.planted, figures: figures, output: output + errors)
    }

    /// What the benchmark reads of `verify --json`.
    struct VerifyBody: Decodable {
        var fixes: [String: Int]
        var serverRows: Int
        var devices: Int
        var devicesWithoutTold: Int

        enum CodingKeys: String, CodingKey {
            case fixes, devices
            case serverRows = "server_rows"
            case devicesWithoutTold = "devices_without_told"
        }
    }

    /// Bytes of every file under `path`, as allocated on disk.
    static func bytes(under path: String) -> Int {
        guard let walker = FileManager.default.enumerator(atPath: path) else { return 0 }
        var total = 0
        while let entry = walker.nextObject() as? String {
            var info = stat()
            if lstat(path + "/" + entry, &info) == 0 { total += Int(info.st_blocks) * 512 }
        }
        return total
    }

}

/// The run the benchmark makes: how many fixes over how many devices, and each device's ids,
/// made again from the seed by the feed exactly as the setup made them.
struct VerifyPlan: Codable, Equatable {
    var fixes: Int
    var devices: Int
    var batch: Int
    var pending: Int
    var seed: UInt64

    /// Where every device's clock starts: 2026-06-15, as the SDK's fixes of a bench run; the
    /// devices start up to a day apart, so the server's rows are not in id order.
    static let start: Int64 = 1_781_481_600_000
    static let startSpread: Int64 = 86_400_000
    static let groups = ["couriers", "vans"]

    var pendingTotal: Int { pending * devices }
    var fixesTotal: Int { fixes + pendingTotal }

    /// Acknowledged fixes of device `index`: an even share, the first devices one more.
    func acknowledged(of index: Int) -> Int {
        fixes / devices + (index < fixes % devices ? 1 : 0)
    }

    /// The device id of device `index` as a run names it (`GROUP-0001`): the first half couriers.
    func deviceID(_ index: Int) -> String {
        let half = (devices + 1) / 2
        let group = index < half ? Self.groups[0] : Self.groups[1]
        let number = index < half ? index : index - half
        return "\(group)-\(String(format: "%04d", number + 1))"
    }

    /// Device `index`'s fix ids, in the order its SDK made them: one a second from its start.
    struct DeviceIDs {
        var rng: SplitMix64
        var ids = UUIDv7Generator()
        var at: Int64
        let installID: UUIDv7
        /// The seed of its batch ids, apart from its fix ids' random bits.
        let batchSeed: UInt64

        init(plan: VerifyPlan, index: Int) {
            var seeds = SplitMix64(seed: plan.seed &+ UInt64(index) &* 0x9E37_79B9_7F4A_7C15)
            var installs = UUIDv7Generator()
            installID = installs.next(atUnixMillis: VerifyPlan.start, using: &seeds)
            at = VerifyPlan.start + Int64(seeds.next() % UInt64(VerifyPlan.startSpread))
            rng = SplitMix64(seed: seeds.next())
            batchSeed = seeds.next()
        }

        mutating func next() -> (id: UUIDv7, at: Int64) {
            at += 1000
            return (ids.next(atUnixMillis: at, using: &rng), at)
        }
    }

    /// The marker of a folder this plan made whole.
    static let markerName = "bench-verify.json"

    /// Makes the run folder at `data`, or finds it made by the same plan; true when reused.
    func make(in data: String) throws -> Bool {
        let marker = "\(data)/\(Self.markerName)"
        if let saved = FileManager.default.contents(atPath: marker),
            (try? JSONDecoder().decode(VerifyPlan.self, from: saved)) == self
        {
            return true
        }
        if FileManager.default.fileExists(atPath: data) { try FileManager.default.removeItem(atPath: data) }
        try PrivateFile.createFolder(atPath: data)
        var installIDs: [String: String] = [:]
        for index in 0..<devices {
            var ids = DeviceIDs(plan: self, index: index)
            installIDs[deviceID(index)] = ids.installID.text
            let store = try DeviceStore(
                path: "\(data)/devices/\(ids.installID.text)/beekon.db", retention: .syncing)
            // Batch ids from their own generator, so the fix ids' sequence is the feed's.
            var batchRNG = SplitMix64(seed: ids.batchSeed)
            var batchIDs = UUIDv7Generator()
            var left = acknowledged(of: index)
            while left > 0 {
                let count = min(batch, left)
                var fixIDs: [UUIDv7] = []
                fixIDs.reserveCapacity(count)
                var last: Int64 = 0
                for _ in 0..<count {
                    let fix = ids.next()
                    fixIDs.append(fix.id)
                    last = fix.at
                }
                // Told as a batch's 2xx is heard: the batch id made as it left, a moment after its last fix.
                let told = last + 250
                try store.record(
                    ToldBatch(
                        batchID: batchIDs.next(atUnixMillis: told, using: &batchRNG), heard: .acknowledged,
                        at: told, fixIDs: fixIDs))
                left -= count
            }
            // The rest are still pending: real rows, stored as the SDK stores a fix.
            let rows: [StoreRow] = (0..<pending).map { step in
                let fix = ids.next()
                return .fix(
                    Location(
                        id: fix.id, latitude: 52.52 + Double(step) * 1e-5, longitude: 13.405, timestamp: fix.at,
                        accuracy: 5, speed: 1.4, bearing: 90, altitude: 34, trigger: .interval, motion: .moving)!,
                    sessionID: "bench")
            }
            try store.insert(rows, now: ids.at)
            store.close()
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        try PrivateFile.write(try encoder.encode(installIDs), toFile: "\(data)/devices.json")
        try DataFolder.record(
            RunIdentity(
                fleet: "bench-verify",
                groups: Self.groups.map { RunIdentity.Group(name: $0, ingest: "http://127.0.0.1:8080/ingest") }),
            in: data)
        try PrivateFile.write(try JSONEncoder().encode(self), toFile: marker)
        return false
    }
}

/// The server's rows as a `install_id,fix_id` CSV with a header, written to a descriptor as they
/// are made: every acknowledged fix once, bar the planted problems, in a server-like order.
struct VerifyFeed {
    /// What was planted, counted as it was written.
    struct Planted {
        var lost = 0
        var duplicates = 0
        var misattributed = 0
        var foreign = 0
        var unheard = 0
        var serverRows = 0

        /// The figures `verify --json` must print.
        func expected(_ plan: VerifyPlan) -> [String: Int] {
            [
                "acknowledged_stored": plan.fixes - lost, "lost": lost, "rejected_not_stored": 0,
                "stored_though_rejected": 0, "pending_not_stored": plan.pendingTotal - unheard,
                "stored_unheard": unheard, "gone_not_stored": 0, "uninstalled_not_stored": 0, "duplicates": duplicates,
                "duplicate_rows": duplicates, "misattributed": misattributed, "foreign": foreign, "unrecorded": 0,
                "server_rows": serverRows, "devices": plan.devices, "devices_without_told": 0,
                // The default thresholds: no fix lost, none stored twice.
                "exit": lost > 0 || duplicates > 0 ? 99 : 0,
            ]
        }
    }

    /// A row waiting in the window: its fix and whose install id it carries.
    private struct Row {
        var id: UUIDv7
        var install: Int32
    }

    let plan: VerifyPlan
    let descriptor: Int32
    private(set) var planted = Planted()
    private var rng: SplitMix64
    /// Rows written in a random order once it is full: the server's order is not the devices'.
    private var window: [Row] = []
    private static let windowSize = 1 << 16
    private var installTexts: [[UInt8]]
    /// The install id of a row under no device of the run (foreign, and the misattributed of a
    /// one-device run).
    private static let strangerInstall: Int32 = -1
    private let strangerText = Array(UUIDv7(high: 0x0180_0000_0000_7ABC, low: 0x8000_0000_0000_5EED).text.utf8)
    private var out: [UInt8] = []
    /// When the first flush went through: its 1 MiB is more than a pipe holds, so verify had begun
    /// reading rows (its devices' stores read and indexed).
    private(set) var firstRead: ContinuousClock.Instant?

    init(plan: VerifyPlan, descriptor: Int32) {
        self.plan = plan
        self.descriptor = descriptor
        rng = SplitMix64(seed: plan.seed ^ 0x5E2B_E250)
        installTexts = []
        window.reserveCapacity(Self.windowSize)
        out.reserveCapacity(1 << 20)
    }

    /// Whether the `ordinal`th acknowledged fix (in the order made) is planted as `residue`:
    /// lost 0, written twice 1 (each 1 in 10,000), misattributed 2 (1 in 100,000).
    private func planted(_ ordinal: Int, every: UInt64, _ residue: UInt64) -> Bool {
        var mix = SplitMix64(seed: plan.seed &+ UInt64(ordinal) &* 0xD6E8_FEB8_6659_FD93)
        return mix.next() % every == residue
    }

    mutating func write() throws {
        out.append(contentsOf: Array("install_id,fix_id\n".utf8))
        var devices = (0..<plan.devices).map { VerifyPlan.DeviceIDs(plan: plan, index: $0) }
        installTexts = devices.map { Array($0.installID.text.utf8) }
        var left = (0..<plan.devices).map { plan.acknowledged(of: $0) }
        var order = Array(0..<plan.devices)
        var ordinal = 0
        // One foreign row in 100,000 acknowledged fixes, at least one; spread over the feed.
        let foreignEvery = max(1, min(100_000, plan.fixes / 2))
        var foreignIDs = UUIDv7Generator()
        var foreignRNG = SplitMix64(seed: plan.seed ^ 0xF0_4E16)
        var remaining = plan.fixes
        while remaining > 0 {
            // Each round, every device with fixes left sends its next batch, the devices in a new order.
            order.shuffle(using: &rng)
            for device in order where left[device] > 0 {
                let count = min(plan.batch, left[device])
                for _ in 0..<count {
                    let id = devices[device].next().id
                    defer { ordinal += 1 }
                    if ordinal % foreignEvery == foreignEvery / 2 {
                        let at = VerifyPlan.start - 86_400_000 + Int64(ordinal)
                        try add(
                            Row(
                                id: foreignIDs.next(atUnixMillis: at, using: &foreignRNG), install: Self.strangerInstall
                            ))
                        planted.foreign += 1
                    }
                    if planted(ordinal, every: 10_000, 0) {
                        planted.lost += 1
                        continue
                    }
                    var install = Int32(device)
                    if planted(ordinal, every: 100_000, 2) {
                        install = plan.devices > 1 ? Int32((device + 1) % plan.devices) : Self.strangerInstall
                        planted.misattributed += 1
                    }
                    try add(Row(id: id, install: install))
                    if planted(ordinal, every: 10_000, 1) {
                        try add(Row(id: id, install: Int32(device)))
                        planted.duplicates += 1
                    }
                }
                left[device] -= count
                remaining -= count
                // Its first pending fix, stored by the server though the device never heard the 2xx.
                if left[device] == 0, plan.pending > 0, device % 10 == 0 {
                    try add(Row(id: devices[device].next().id, install: Int32(device)))
                    planted.unheard += 1
                }
            }
        }
        window.shuffle(using: &rng)
        for row in window { try emit(row) }
        window = []
        try flush()
    }

    /// Puts `row` in the window; once it is full, a random row of it goes out to make room.
    private mutating func add(_ row: Row) throws {
        planted.serverRows += 1
        guard window.count == Self.windowSize else {
            window.append(row)
            return
        }
        let slot = Int(rng.next() % UInt64(Self.windowSize))
        try emit(window[slot])
        window[slot] = row
    }

    private mutating func emit(_ row: Row) throws {
        out.append(contentsOf: row.install < 0 ? strangerText : installTexts[Int(row.install)])
        out.append(UInt8(ascii: ","))
        row.id.appendText(to: &out)
        out.append(UInt8(ascii: "\n"))
        if out.count >= 1 << 20 { try flush() }
    }

    private mutating func flush() throws {
        var written = 0
        try out.withUnsafeBytes { bytes in
            while written < bytes.count {
                let result = Foundation.write(descriptor, bytes.baseAddress! + written, bytes.count - written)
                if result < 0 {
                    if errno == EINTR { continue }
                    throw CommandFailure("the pipe to verify: \(String(cString: strerror(errno)))")
                }
                written += result
            }
        }
        out.removeAll(keepingCapacity: true)
        if firstRead == nil { firstRead = .now }
    }
}
