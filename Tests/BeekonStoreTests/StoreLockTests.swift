import BeekonDevice
import BeekonStore
import FleetTestSupport
import SQLite
import Testing

/// A device store is its device's alone while it is open, as an app's database is on a phone:
/// another connection, in this process or another, finds it locked and cannot read a half-made
/// state or checkpoint the store's WAL from under it; once the store closes, anyone may read it.
@Suite("Store lock")
struct StoreLockTests {
    /// The fixes in the store at `path`, read through a connection of SQLite's default kind (as
    /// the `sqlite3` shell would); nil when the database is locked.
    static func countFixes(_ path: String) throws -> Int? {
        let connection = try SQLiteConnection(path: path)
        do throws(SQLiteError) {
            let count = try connection.prepare("SELECT count(*) FROM locations")
            return try count.step() ? count.int(at: 0) : 0
        } catch .busy {
            return nil
        }
    }

    @Test("while a store is open another connection finds it locked; once it closes, it reads every fix")
    func openStoreIsLocked() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("devices/one/beekon.db")
            let store = try DeviceStore(path: path, retention: .syncing)
            var maker = FixMaker()
            try store.insert(maker.fix(at: 1_000), sessionID: "s", now: 2_000)
            try store.insert(maker.fix(at: 2_000), sessionID: "s", now: 3_000)
            #expect(try Self.countFixes(path) == nil)
            store.close()
            #expect(try Self.countFixes(path) == 2)
        }
    }

    @Test("a second store on the same file is refused as busy while the first is open, and opens after it closes")
    func secondStoreIsRefused() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("beekon.db")
            let first = try DeviceStore(path: path, retention: .syncing)
            var maker = FixMaker()
            try first.insert(maker.fix(at: 1_000), sessionID: "s", now: 2_000)
            do throws(StoreError) {
                _ = try DeviceStore(path: path, retention: .syncing)
                Issue.record("the second store opened while the first held the file")
            } catch {
                #expect(error.kind == .busy, "\(error)")
            }
            first.close()
            let second = try DeviceStore(path: path, retention: .syncing)
            #expect(try second.pendingCount() == 1)
            second.close()
        }
    }

    @Test("a store the pool closes lets go of its lock, and takes it again when it reopens")
    func poolCloseReleasesTheLock() throws {
        try withTemporaryDirectory { directory in
            let pool = StorePool(maxOpen: 1)
            let one = DeviceStore(path: directory.file("one.db"), retention: .syncing, pool: pool)
            let two = DeviceStore(path: directory.file("two.db"), retention: .syncing, pool: pool)
            var maker = FixMaker()
            try one.insert(maker.fix(at: 1_000), sessionID: "s", now: 2_000)
            #expect(try Self.countFixes(directory.file("one.db")) == nil)
            try two.insert(maker.fix(at: 2_000), sessionID: "s", now: 3_000)  // closes `one`
            #expect(try Self.countFixes(directory.file("one.db")) == 1)
            #expect(try Self.countFixes(directory.file("two.db")) == nil)
            pool.closeAll()
        }
    }
}
