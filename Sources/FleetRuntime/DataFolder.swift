import BeekonStore
import FleetDescription
import FleetEngine
import Foundation

/// What a data folder holds of an earlier run, read before a run starts, so `run` can resume it,
/// refuse it (another fleet or ingest) or discard it (`--fresh`) before it creates anything.
public enum DataFolder {
    /// An earlier run on the folder: its clock file and its record; the devices it made are read
    /// only when asked for (`installIDs()`), since the run reads `devices.json` itself as it starts.
    public struct EarlierRun: Sendable {
        /// The data folder.
        public var directory: String
        /// Its `clock.json`.
        public var clock: ClockRecord?
        /// Its `run-identity.json`: what fleet and ingest it had.
        public var record: Record

        /// Its install ids by device id (`devices.json`).
        public func installIDs() -> [String: String] {
            RunFiles.readInstallIDs(directory)
        }
    }

    /// What the folder's `run-identity.json` says.
    public enum Record: Sendable {
        /// None: a folder written before runs recorded themselves.
        case missing
        case identity(RunIdentity)
        /// A file that is not what a run writes (the problem names it and what was expected).
        case unreadable(RunError)
    }

    /// What the stores of an earlier run hold, as their ledgers and indexes say.
    public struct Stores: Sendable {
        /// Fixes not yet acknowledged.
        public var pending = 0
        /// The newest fix or geofence event (nil: none).
        public var newest: Int64?
        /// Stores that could not be read (not counted).
        public var unreadable = 0
    }

    /// The folder a discard moves the earlier run into before deleting it, so a discard cut
    /// short leaves no half-deleted run in place: every start finishes it first.
    static let discardFolder = ".discarding"

    /// The entries of a data folder that belong to its run, in the order a discard moves them:
    /// first what makes the folder read as an earlier run, the in-process receiver's database
    /// too (a fresh run sending the same fix ids would be told they are duplicates).
    static let runEntries = [
        "devices.json", ClockRecord.fileName, RunIdentity.fileName, "devices", RunFiles.formerInstallsFile,
        "ingest.db", "ingest.db-wal", "ingest.db-shm", "ingest.db-journal",
        "devices.json.tmp", "\(ClockRecord.fileName).tmp", "\(RunIdentity.fileName).tmp",
        "\(RunFiles.formerInstallsFile).tmp",
    ]

    /// The earlier run on `directory`, or nil when it holds none (no devices, no clock file); a
    /// `RunError` for a clock file that cannot be read, as the run itself would refuse it.
    public static func earlierRun(_ directory: String) throws(RunError) -> EarlierRun? {
        let clock = try RunFiles.readClock(directory)
        // A run writes its clock file as it starts: without one, its devices say whether it made any.
        guard clock != nil || !RunFiles.readInstallIDs(directory).isEmpty else { return nil }
        return EarlierRun(directory: directory, clock: clock, record: readRecord(directory))
    }

    /// The folder's `run-identity.json`.
    static func readRecord(_ directory: String) -> Record {
        let path = "\(directory)/\(RunIdentity.fileName)"
        guard FileManager.default.fileExists(atPath: path) else { return .missing }
        guard let data = FileManager.default.contents(atPath: path) else {
            return .unreadable(RunError(description: "the run record \(path) cannot be read"))
        }
        do throws(RunError) {
            return .identity(try RunIdentity(json: data, path: path))
        } catch {
            return .unreadable(error)
        }
    }

    /// Writes `identity` to `directory`'s `run-identity.json` (0600, replaced whole), making the folder
    /// when it is missing.
    public static func record(_ identity: RunIdentity, in directory: String) throws {
        try PrivateFile.createFolder(atPath: directory)
        try PrivateFile.write(identity.json, toFile: "\(directory)/\(RunIdentity.fileName)")
    }

    /// Reads every store of `earlier` (missing ones are not made); `trueInstant` turns a device's
    /// newest stamp (by its id) into the latest true instant it can have been made at (see
    /// `FleetLoop.latestTrueInstant`: phones' clocks).
    public static func stores(
        of earlier: EarlierRun, trueInstant: (_ deviceID: String, _ stamped: Int64) -> Int64 = { $1 }
    ) -> Stores {
        var stores = Stores()
        var seen: Set<String> = []
        for (deviceID, installID) in earlier.installIDs().sorted(by: { $0.key < $1.key })
        where seen.insert(installID).inserted {
            let path = "\(earlier.directory)/devices/\(installID)/beekon.db"
            guard FileManager.default.fileExists(atPath: path) else { continue }
            do throws(StoreError) {
                let store = try DeviceStore(path: path)
                defer { store.close() }
                stores.pending += store.ledger?.pending ?? 0
                if let stamped = try store.newestTimestamp() {
                    let newest = trueInstant(deviceID, stamped)
                    stores.newest = max(stores.newest ?? newest, newest)
                }
            } catch {
                stores.unreadable += 1
            }
        }
        return stores
    }

    /// Where a run of `fleet` with `seed` resumes `earlier` (`RunStart`, with its stores read, each
    /// newest row on its phone's clock taken back to true time), with the wall clock at `wallNow`.
    public static func resumeStart(of earlier: EarlierRun, fleet: FleetFile, seed: UInt64, wallNow: Int64) -> RunStart {
        let trueInstant = { (deviceID: String, stamped: Int64) in
            FleetLoop.latestTrueInstant(stampedAt: stamped, deviceID: deviceID, fleet: fleet, seed: seed)
        }
        return RunStart.resolve(
            configured: fleet.clock.start, wallNow: wallNow, earlierRun: true, record: earlier.clock,
            newestStored: stores(of: earlier, trueInstant: trueInstant).newest)
    }

    /// Whether a discard of `directory` was begun and not finished.
    public static func discardUnfinished(_ directory: String) -> Bool {
        FileManager.default.fileExists(atPath: "\(directory)/\(discardFolder)")
    }

    /// Discards the run `directory` holds: its entries (`runEntries`) are renamed into a folder
    /// of their own, then that folder is deleted; entries that are not the run's (reports, a
    /// shard's folder, the user's files) stay. Finishes a discard cut short, too.
    public static func discard(_ directory: String) throws {
        let aside = "\(directory)/\(discardFolder)"
        try PrivateFile.createFolder(atPath: aside)
        for entry in runEntries where FileManager.default.fileExists(atPath: "\(directory)/\(entry)") {
            // A discard cut short may have moved an entry of the same name already.
            try? FileManager.default.removeItem(atPath: "\(aside)/\(entry)")
            guard rename("\(directory)/\(entry)", "\(aside)/\(entry)") == 0 else {
                throw CocoaError(
                    .fileWriteUnknown,
                    userInfo: [
                        NSFilePathErrorKey: "\(directory)/\(entry)",
                        NSLocalizedDescriptionKey:
                            "cannot move \(directory)/\(entry) aside: \(String(cString: strerror(errno)))",
                    ])
            }
        }
        try FileManager.default.removeItem(atPath: aside)
    }
}
