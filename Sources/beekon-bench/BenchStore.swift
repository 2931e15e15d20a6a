import ArgumentParser
import BeekonDevice
import BeekonNet
import BeekonStore
import FleetCommandLine
import FleetDescription
import Foundation

/// `beekon-bench store`: the device store's and the payload's hot paths.
struct BenchStore: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Store commits per second, RSS per idle store, and encode+gzip of a 100-fix batch.",
        discussion: """
            Writes real SQLite stores (WAL, synchronous=OFF, as the fleet's) in a temporary folder, one fix \
            per transaction as the SDK writes from its location callback, and removes them after.
            """)

    @Flag(help: "Print the figures as one JSON object.")
    var json = false

    /// `--stores`: as many as a fleet has devices.
    static let storesRange = DeviceGroup.countRange
    /// `--commits`, `--rounds` and `--encode-iterations`.
    static let repeatsRange = NumberRange.integer(1...10_000_000)

    @Option(
        help: "How many stores to open for the fleet-wide figures, 1 to 100000.",
        transform: FlagNumber.integer(storesRange))
    var stores = 1000

    @Option(help: "Commits into the single store, 1 to 10000000.", transform: FlagNumber.integer(repeatsRange))
    var commits = 20_000

    @Option(
        help: "Rounds of one commit per store across all the stores, 1 to 10000000.",
        transform: FlagNumber.integer(repeatsRange))
    var rounds = 40

    @Option(
        help: "Encode+gzip iterations of the 100-fix batch, 1 to 10000000.", transform: FlagNumber.integer(repeatsRange)
    )
    var encodeIterations = 3000

    @Option(help: "Where to put the stores (a new temporary folder by default; removed after).")
    var directory: String?

    func run() throws {
        // Three descriptors a store: 1,000 stores need more than the common default of 1,024.
        let openFiles = FileLimit.raiseToHardLimit()
        guard openFiles == 0 || openFiles >= stores * 3 + 64 else {
            throw CommandFailure(
                "\(stores) open stores need about \(stores * 3 + 64) open files, but this process may open "
                    + "only \(openFiles); raise the hard limit (ulimit -Hn) or pass a smaller --stores.")
        }
        let folder = try BenchFolder(directory)
        defer { folder.remove() }
        var fixes = FixSource(seed: 2026)
        var report = BenchReport(title: "beekon-bench store")

        // Memory first, before the other phases leave freed heap behind that new stores would reuse.
        let pool = StorePool(maxOpen: stores)
        let before = ProcessMemory.residentKiB()
        let fleet = (0..<stores).map { index in
            DeviceStore(path: folder.path("fleet/device-\(index).db"), retention: .syncing, pool: pool)
        }
        // Idle as a device is between fixes: its store has been written to, then released.
        for store in fleet {
            for _ in 0..<20 {
                try store.insert(fixes.next(), sessionID: fixes.sessionID, now: fixes.now)
            }
            store.releaseMemory()
        }
        let after = ProcessMemory.residentKiB()
        report.add(
            "rss_kib_per_idle_store", "RSS per open idle store (\(stores) open)",
            Double(after - before) / Double(stores), unit: "KiB")

        // The same stores, written round-robin: each commit lands in a different file.
        // The stores must outlive the clock reading: freeing them closes their files.
        let fleetSeconds = try withExtendedLifetime(fleet) {
            let fleetStart = ContinuousClock.now
            for _ in 0..<rounds {
                for store in fleet {
                    try store.insert(fixes.next(), sessionID: fixes.sessionID, now: fixes.now)
                }
            }
            return (ContinuousClock.now - fleetStart).seconds
        }
        report.add(
            "commits_per_s_1000_stores", "single-row commits/s across \(stores) stores",
            Double(rounds * stores) / fleetSeconds, unit: "commits/s")

        // A 1-fix upload's store work, round-robin: store the fix, read it as a batch, and
        // delete it as the server's 2xx acknowledges it.
        let uploadSeconds = try withExtendedLifetime(fleet) {
            let uploadStart = ContinuousClock.now
            for _ in 0..<rounds {
                for store in fleet {
                    try store.insert(fixes.next(), sessionID: fixes.sessionID, now: fixes.now)
                    if let batch = try store.nextBatch(limit: 1) { try store.acknowledge(batch) }
                }
            }
            return (ContinuousClock.now - uploadStart).seconds
        }
        report.add(
            "upload_cycles_per_s_1000_stores", "insert + nextBatch(1) + acknowledge/s across \(stores) stores",
            Double(rounds * stores) / uploadSeconds, unit: "cycles/s")
        pool.closeAll()

        // A store the pool closed, used again: each insert reopens its store and closes the other
        // (what most fixes cost once a fleet has more devices than open stores).
        let reopenPool = StorePool(maxOpen: 1)
        let pair = (0..<2).map { index in
            DeviceStore(path: folder.path("reopen/device-\(index).db"), retention: .syncing, pool: reopenPool)
        }
        for store in pair {
            for _ in 0..<100 { try store.insert(fixes.next(), sessionID: fixes.sessionID, now: fixes.now) }
        }
        let reopens = max(rounds * 50, 200)
        let reopenSeconds = try withExtendedLifetime(pair) {
            let start = ContinuousClock.now
            for index in 0..<reopens {
                try pair[index % 2].insert(fixes.next(), sessionID: fixes.sessionID, now: fixes.now)
            }
            return (ContinuousClock.now - start).seconds
        }
        reopenPool.closeAll()
        report.add(
            "reopen_insert_us", "one fix into a store the pool had closed (reopen, insert, close another)",
            reopenSeconds / Double(reopens) * 1e6, unit: "µs")

        // Making new stores: written from the template (`prepare`, what a fleet does at start), or
        // made by SQLite at a first use.
        let madePool = StorePool(maxOpen: 64)
        let templateSeconds = try Self.timeMaking(stores, in: folder.path("template"), pool: madePool) { store in
            try store.prepare()
        }
        let sqliteSeconds = try Self.timeMaking(stores, in: folder.path("sqlite"), pool: madePool) { store in
            _ = try store.readState(.sessionID)
        }
        madePool.closeAll()
        report.add(
            "store_create_us_template", "a new store written from the template (\(stores) of them)",
            templateSeconds / Double(stores) * 1e6, unit: "µs")
        report.add(
            "store_create_us_sqlite", "a new store made by SQLite at its first use (\(stores) of them)",
            sqliteSeconds / Double(stores) * 1e6, unit: "µs")

        let single = try DeviceStore(path: folder.path("one/device.db"), retention: .syncing)
        for _ in 0..<200 {
            try single.insert(fixes.next(), sessionID: fixes.sessionID, now: fixes.now)
        }
        let singleSeconds = try withExtendedLifetime(single) {
            let singleStart = ContinuousClock.now
            for _ in 0..<commits {
                try single.insert(fixes.next(), sessionID: fixes.sessionID, now: fixes.now)
            }
            return (ContinuousClock.now - singleStart).seconds
        }
        report.add(
            "commits_per_s_one_store", "single-row commits/s into one store",
            Double(commits) / singleSeconds, unit: "commits/s")
        single.close()

        // A 100-fix upload's store work once its fixes are in: read the batch, then delete it as
        // the server's 2xx acknowledges it (each fix was its own commit, as the SDK writes them).
        let batchStore = try DeviceStore(path: folder.path("batch/device.db"), retention: .syncing)
        var readSeconds = 0.0
        var acknowledgeSeconds = 0.0
        for round in 0..<(Self.batchRounds + 5) {
            for _ in 0..<100 { try batchStore.insert(fixes.next(), sessionID: fixes.sessionID, now: fixes.now) }
            let start = ContinuousClock.now
            let batch = try batchStore.nextBatch(limit: 100)
            let read = ContinuousClock.now
            guard let batch, batch.locations.count == 100, try batchStore.acknowledge(batch) == 100 else {
                throw CommandFailure("bench store: a 100-fix batch did not read and delete as 100 rows")
            }
            // The first rounds warm the statements and the page cache.
            if round >= 5 {
                readSeconds += (read - start).seconds
                acknowledgeSeconds += (ContinuousClock.now - read).seconds
            }
        }
        batchStore.close()
        report.add(
            "read_us_100_fixes", "nextBatch(100): a 100-fix batch read from one store",
            readSeconds / Double(Self.batchRounds) * 1e6, unit: "µs")
        report.add(
            "acknowledge_us_100_fixes", "acknowledge: the 100-fix batch deleted",
            acknowledgeSeconds / Double(Self.batchRounds) * 1e6, unit: "µs")

        // A spawn's config write: each device of a group is given the group's one config.
        let stateStore = try DeviceStore(path: folder.path("state/device.db"), retention: .syncing)
        let config = BeekonConfig(
            preset: .precision, sync: SyncConfig(url: "http://127.0.0.1:8080/ingest", headers: ["X-Api-Key": "k"]))
        try stateStore.writeState([.config(config)])
        let stateStart = ContinuousClock.now
        for _ in 0..<Self.stateWrites { try stateStore.writeState([.config(config)]) }
        let stateSeconds = (ContinuousClock.now - stateStart).seconds
        stateStore.close()
        report.add(
            "config_write_us", "the config written to a device's state (a spawn's first write)",
            stateSeconds / Double(Self.stateWrites) * 1e6, unit: "µs")

        // Encode + gzip: one 100-fix batch, as the sync engine builds it before each POST.
        let payload = fixes.payload(fixes: 100)
        let compressor = try GzipCompressor()
        var gzipped: [UInt8] = []
        for _ in 0..<200 {
            gzipped = try compressor.compress(payload.encoded())
        }
        let encodeStart = ContinuousClock.now
        for _ in 0..<encodeIterations {
            gzipped = try compressor.compress(payload.encoded())
        }
        let encodeSeconds = (ContinuousClock.now - encodeStart).seconds
        report.add(
            "encode_gzip_us_100_fixes", "encode + gzip of a 100-fix batch",
            encodeSeconds / Double(encodeIterations) * 1e6, unit: "µs")
        report.add(
            "bytes_raw_100_fixes", "100-fix batch, JSON", Double(payload.encoded().count), unit: "bytes")
        report.add("bytes_gzip_100_fixes", "100-fix batch, gzipped", Double(gzipped.count), unit: "bytes")
        report.note("stores in \(folder.root) (removed after); \(ProcessInfo.processInfo.activeProcessorCount) cores")
        print(report.render(json: json))
    }
}

extension BenchStore {
    /// Rounds of the 100-fix batch measure (after 5 that warm up).
    static let batchRounds = 100
    /// Config writes measured.
    static let stateWrites = 2000

    /// Seconds to make `count` new stores, each in a folder of its own under `folder` (as a
    /// fleet's are), with `make`.
    static func timeMaking(
        _ count: Int, in folder: String, pool: StorePool, _ make: (DeviceStore) throws -> Void
    ) throws -> Double {
        let stores = (0..<count).map { index in
            DeviceStore(path: "\(folder)/device-\(index)/beekon.db", retention: .syncing, pool: pool)
        }
        return try withExtendedLifetime(stores) {
            let start = ContinuousClock.now
            for store in stores { try make(store) }
            return (ContinuousClock.now - start).seconds
        }
    }
}

extension Duration {
    /// The duration in seconds, as a Double.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) * 1e-18
    }
}
