import BeekonDevice
import FleetTestSupport
import Foundation
import SQLite
import Testing

@testable import BeekonStore

/// A new store is written from the bytes of one SQLite made (`StoreTemplate`), without opening
/// it: the same file SQLite would have made, ready for its device's first fix.
@Suite("Store template")
struct StoreTemplateTests {
    /// What a store file is, as SQLite reads it: its schema, version, page size and journal mode.
    static func shape(_ path: String) throws -> [String] {
        let connection = try SQLiteConnection(path: path)
        var shape: [String] = []
        for pragma in ["user_version", "page_size", "journal_mode"] {
            let query = try connection.prepare("PRAGMA \(pragma)")
            shape.append("\(pragma)=\(try query.step() ? query.string(at: 0) : "")")
        }
        let schema = try connection.prepare("SELECT type, name, sql FROM sqlite_master ORDER BY name")
        while try schema.step() {
            shape.append("\(schema.string(at: 0)) \(schema.string(at: 1)): \(schema.string(at: 2))")
        }
        let ledger = try connection.prepare("SELECT * FROM fix_ledger")
        while try ledger.step() {
            shape.append("fix_ledger row")
        }
        return shape
    }

    @Test(
        """
        a prepared new store is made without opening it, is the file SQLite makes (schema, version, \
        1 KiB pages, WAL), 0600 in a 0700 folder, and takes fixes and state like any store
        """)
    func preparedLikeSQLiteMakesIt() throws {
        try withTemporaryDirectory { directory in
            let made = try DeviceStore(path: directory.file("made/beekon.db"))
            made.close()
            let path = directory.file("devices/one/beekon.db")
            let store = DeviceStore(path: path, retention: .syncing, pool: StorePool(maxOpen: 4))
            try store.prepare()
            #expect(!store.isOpen)
            #expect(try store.pendingCount() == 0)
            #expect(try store.readDeviceState().installID == nil)
            #expect(!store.isOpen, "a fresh store's state is known without opening it")
            #expect(store.ledger == FixLedger())
            #expect(FileMode.of(path) == 0o600)
            #expect(FileMode.of(directory.file("devices/one")) == 0o700)
            #expect(try Self.shape(path) == Self.shape(directory.file("made/beekon.db")))

            var maker = FixMaker()
            let fix = maker.fix(at: 1_000)
            try store.insert(fix, sessionID: "s", now: 2_000)
            try store.writeState(.sessionID, "s")
            store.close()
            let reopened = try DeviceStore(path: path, retention: .syncing)
            #expect(try reopened.history(from: .min, to: .max) == [fix])
            #expect(try reopened.readState(.sessionID) == "s")
            #expect(try reopened.pendingCount() == 1)
            reopened.close()
        }
    }

    @Test("preparing a store whose file exists opens it for its counts and leaves its rows alone")
    func preparedExistingStoreKeepsItsRows() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("beekon.db")
            var maker = FixMaker()
            let first = try DeviceStore(path: path, retention: .syncing)
            try first.insert(maker.fix(at: 1_000), sessionID: "s", now: 2_000)
            try first.writeState(.sessionID, "s")
            first.close()
            let store = DeviceStore(path: path, retention: .syncing, pool: StorePool(maxOpen: 4))
            try store.prepare()
            #expect(store.isOpen)
            #expect(try store.pendingCount() == 1)
            #expect(try store.readState(.sessionID) == "s")
            try store.prepare()  // again: nothing more
            #expect(try store.pendingCount() == 1)
            store.close()
        }
    }

    @Test("a store that cannot be made says why and where, and leaves no file behind")
    func preparedStoreThatCannotBeMade() throws {
        try withTemporaryDirectory { directory in
            // Its folder's place is taken by a file.
            #expect(FileManager.default.createFile(atPath: directory.file("taken"), contents: Data()))
            let store = DeviceStore(
                path: directory.file("taken/one/beekon.db"), retention: .syncing, pool: StorePool(maxOpen: 4))
            do throws(StoreError) {
                try store.prepare()
                Issue.record("prepared a store under a file")
            } catch {
                #expect(error.kind == .cannotOpen)
                #expect(error.description.contains(directory.file("taken/one/beekon.db")))
            }
            // A folder it may not write: the file cannot be created.
            let locked = directory.file("locked")
            try FileManager.default.createDirectory(atPath: locked, withIntermediateDirectories: true)
            chmod(locked, 0o500)
            defer { chmod(locked, 0o700) }
            guard geteuid() != 0 else { return }  // root writes anywhere
            let denied = DeviceStore(path: locked + "/beekon.db", retention: .syncing, pool: StorePool(maxOpen: 4))
            #expect(throws: StoreError.self) { try denied.prepare() }
            #expect(!FileManager.default.fileExists(atPath: locked + "/beekon.db"))
        }
    }
}
