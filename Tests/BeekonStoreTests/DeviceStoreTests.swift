import BeekonDevice
import BeekonStore
import FleetTestSupport
import Foundation
import Testing

@Suite("DeviceStore: files, schema, history")
struct DeviceStoreTests {
    @Test("history includes both bounds and is ascending by timestamp, ties in insertion order")
    func historyBoundsAndOrder() throws {
        try withTemporaryDirectory { directory in
            let store = try DeviceStore(path: directory.file("store.db"), retention: .syncing)
            var maker = FixMaker()
            let at5 = maker.fix(at: 5_000)
            let at1 = maker.fix(at: 1_000)
            let at3First = maker.fix(at: 3_000)
            let at7 = maker.fix(at: 7_000)
            let at3Second = maker.fix(at: 3_000)
            for fix in [at5, at1, at3First, at7, at3Second] {
                try store.insert(fix, sessionID: "s", now: 10_000)
            }

            #expect(try store.history(from: 3_000, to: 5_000) == [at3First, at3Second, at5])
            #expect(try store.history(from: 0, to: 10_000) == [at1, at3First, at3Second, at5, at7])
            #expect(try store.history(from: 1_000, to: 1_000) == [at1])
            #expect(try store.history(from: 1_001, to: 2_999).isEmpty)
            #expect(try store.history(from: 5_000, to: 3_000).isEmpty)
        }
    }

    /// Fix timestamps, event timestamps, and the newest of them all.
    static let newestCases: [([Int64], [Int64], Int64?)] = [
        ([], [], nil),
        ([3_000, 9_000, 1_000], [], 9_000),
        ([], [4_000, 2_000], 4_000),
        ([3_000, 5_000], [7_000], 7_000),
        ([8_000], [7_999], 8_000),
    ]

    @Test(
        """
        newestTimestamp is the latest fix or geofence event timestamp, \
        whichever table holds it, and nil when both are empty
        """,
        arguments: newestCases)
    func newestTimestamp(fixes: [Int64], events: [Int64], newest: Int64?) throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("store.db")
            let store = try DeviceStore(path: path, retention: .syncing)
            var maker = FixMaker()
            for timestamp in fixes {
                try store.insert(maker.fix(at: timestamp), sessionID: "s", now: 10_000)
            }
            for timestamp in events {
                try store.insert(maker.event(at: timestamp), sessionID: "s", now: 10_000)
            }
            #expect(try store.newestTimestamp() == newest)
            store.close()
            // Read from the file, not from what this store object cached.
            let reopened = try DeviceStore(path: path, retention: .syncing)
            #expect(try reopened.newestTimestamp() == newest)
            reopened.close()
        }
    }

    @Test("newestTimestamp forgets rows once they are deleted")
    func newestTimestampAfterDelete() throws {
        try withTemporaryDirectory { directory in
            let store = try DeviceStore(path: directory.file("store.db"), retention: .syncing)
            var maker = FixMaker()
            for timestamp: Int64 in [1_000, 2_000, 3_000] {
                try store.insert(maker.fix(at: timestamp), sessionID: "s", now: 10_000)
            }
            #expect(try store.deleteLocations(before: 2_500) == 2)
            #expect(try store.newestTimestamp() == 3_000)
            #expect(try store.deleteLocations(before: nil) == 1)
            #expect(try store.newestTimestamp() == nil)
        }
    }

    @Test(
        "deleteLocations deletes fixes at or before the instant and returns the count; nil deletes all"
    )
    func deleteLocations() throws {
        try withTemporaryDirectory { directory in
            let store = try DeviceStore(path: directory.file("store.db"), retention: .syncing)
            var maker = FixMaker()
            let fixes = (1...10).map { maker.fix(at: Int64($0) * 1_000) }
            for fix in fixes {
                try store.insert(fix, sessionID: "s", now: 20_000)
            }
            try store.insert(maker.event(at: 500), sessionID: "s", now: 20_000)

            #expect(try store.deleteLocations(before: 4_000) == 4)
            #expect(try store.history(from: 0, to: 20_000) == Array(fixes[4...]))
            #expect(try store.pendingCount() == 6)
            #expect(try store.deleteLocations(before: 4_000) == 0)

            #expect(try store.deleteLocations(before: nil) == 6)
            #expect(try store.history(from: .min, to: .max).isEmpty)
            #expect(try store.pendingCount() == 0)
            // Geofence events are not locations.
            #expect(try store.pendingEventCount() == 1)
        }
    }

    /// Fixes that between them hold every enum value, nil and zero in each optional field, and
    /// coordinates at the edges.
    static func roundTripFixes() -> [Location] {
        var maker = FixMaker(seed: 11)
        var fixes: [Location] = []
        var timestamp: Int64 = 1_700_000_000_000
        func next() -> Int64 {
            timestamp += 1
            return timestamp
        }
        fixes.append(
            maker.fix(at: next(), accuracy: nil, speed: nil, bearing: nil, altitude: nil))
        fixes.append(maker.fix(at: next(), accuracy: 0, speed: 0, bearing: 0, altitude: 0))
        fixes.append(
            maker.fix(
                at: next(), latitude: -90, longitude: 180, accuracy: 1e-9, speed: 340.5,
                bearing: 359.999_999, altitude: -430.25))
        fixes.append(maker.fix(at: next(), latitude: 90, longitude: -180, altitude: 8_848.86))
        fixes.append(maker.fix(at: next(), latitude: 0.1 + 0.2, longitude: -0.000_001))
        for trigger in Trigger.allCases {
            fixes.append(maker.fix(at: next(), trigger: trigger))
        }
        for motion in Motion.allCases {
            fixes.append(maker.fix(at: next(), motion: motion))
        }
        for activity in Activity.allCases {
            fixes.append(maker.fix(at: next(), activity: activity))
        }
        for quality in Quality.allCases {
            fixes.append(maker.fix(at: next(), quality: quality))
        }
        fixes.append(maker.fix(at: next(), isMock: true))
        fixes.append(maker.fix(at: -1))
        return fixes.sorted { $0.timestamp < $1.timestamp }
    }

    @Test("every Location field round-trips exactly: nil stays nil, 0 stays 0, every enum value")
    func fieldsRoundTrip() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("store.db")
            let fixes = Self.roundTripFixes()
            do {
                let store = try DeviceStore(path: path, retention: .syncing)
                for fix in fixes {
                    try store.insert(fix, sessionID: "", now: 0)
                }
                #expect(try store.history(from: .min, to: .max) == fixes)
            }
            // And from the file, through a new store object.
            let reopened = try DeviceStore(path: path, retention: .syncing)
            let stored = try reopened.history(from: .min, to: .max)
            #expect(stored == fixes)
            #expect(stored.first { $0.accuracy == nil } != nil)
            let zero = try #require(stored.first { $0.accuracy == 0 })
            #expect(zero.speed == 0 && zero.bearing == 0 && zero.altitude == 0)
            // Equality of the structs already covers the ids; spelled out because batches rely on it.
            #expect(stored.map(\.id) == fixes.map(\.id))
        }
    }

    @Test("a new store is at the current schema version, in WAL mode")
    func schemaVersionAndWAL() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("store.db")
            let store = try DeviceStore(path: path)
            var maker = FixMaker()
            try store.insert(maker.fix(at: 1), sessionID: "s", now: 1)
            #expect(FileManager.default.fileExists(atPath: path + "-wal"))
            store.close()
            // close() checkpoints, so the header in the main file is current.
            let header = try Self.header(of: path)
            #expect(header.writeVersion == 2 && header.readVersion == 2, "2 means WAL")
            #expect(header.userVersion == DeviceStore.schemaVersion)
            #expect(DeviceStore.schemaVersion == 4)
            #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        }
    }

    @Test("a file from a newer build is refused with an error naming the file")
    func newerSchemaRefused() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("store.db")
            try DeviceStore(path: path).close()
            try Self.setUserVersion(99, of: path)
            let before = try Data(contentsOf: URL(fileURLWithPath: path))

            let error = try #require(throws: StoreError.self) {
                _ = try DeviceStore(path: path)
            }
            #expect(error.kind == .newerSchema)
            #expect(error.path == path)
            #expect(error.description.contains(path))
            #expect(error.description.contains("schema version 99"))
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        }
    }

    @Test(
        "a file that is not a database gives an error naming the file and operation, and is left untouched"
    )
    func notADatabase() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("store.db")
            let garbage = Data(
                String(repeating: "this is not a SQLite database\n", count: 200).utf8)
            try garbage.write(to: URL(fileURLWithPath: path))

            let error = try #require(throws: StoreError.self) {
                _ = try DeviceStore(path: path)
            }
            #expect(error.kind == .notADatabase)
            #expect(error.path == path)
            #expect(error.operation == "read schema version")
            #expect(error.description.contains(path))
            #expect(error.description.contains("read schema version"))
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == garbage)
            #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
            #expect(!FileManager.default.fileExists(atPath: path + "-journal"))
        }
    }

    @Test("missing parent folders are created")
    func createsFolders() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("devices/0042/beekon/beekon.db")
            let store = try DeviceStore(path: path)
            var maker = FixMaker()
            try store.insert(maker.fix(at: 1), sessionID: "s", now: 1)
            #expect(FileManager.default.fileExists(atPath: path))
        }
    }

    @Test("a folder that cannot be made gives a cannotOpen error naming the file")
    func cannotOpen() throws {
        try withTemporaryDirectory { directory in
            // A regular file where a folder should be.
            let blocker = directory.file("blocker")
            try Data("x".utf8).write(to: URL(fileURLWithPath: blocker))
            let path = blocker + "/store.db"
            let error = try #require(throws: StoreError.self) {
                _ = try DeviceStore(path: path)
            }
            #expect(error.kind == .cannotOpen)
            #expect(error.description.contains(path))
        }
    }

    @Test("geofence events are stored and counted apart from fixes")
    func geofenceEvents() throws {
        try withTemporaryDirectory { directory in
            let store = try DeviceStore(path: directory.file("store.db"), retention: .syncing)
            var maker = FixMaker()
            try store.insert(maker.event(at: 1_000, type: .enter), sessionID: "", now: 1_000)
            try store.insert(maker.event(at: 2_000, type: .exit), sessionID: "", now: 2_000)
            #expect(try store.pendingEventCount() == 2)
            #expect(try store.pendingCount() == 0)
            #expect(try store.history(from: .min, to: .max).isEmpty)
        }
    }

    // MARK: Reading and patching the database header (SQLite file format §1.3)

    struct Header {
        var writeVersion: UInt8
        var readVersion: UInt8
        var userVersion: Int
    }

    static func header(of path: String) throws -> Header {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)).prefix(100))
        let userVersion = bytes[60..<64].reduce(0) { $0 << 8 | Int($1) }
        return Header(writeVersion: bytes[18], readVersion: bytes[19], userVersion: userVersion)
    }

    static func setUserVersion(_ version: UInt32, of path: String) throws {
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: 60)
        try handle.write(contentsOf: withUnsafeBytes(of: version.bigEndian) { Data($0) })
    }
}
