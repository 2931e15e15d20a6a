import BeekonDevice
import BeekonStore
import FleetTestSupport
import Foundation
import Testing

/// Store failures: each classified by SQLite's own result code, and an acknowledged row never
/// handed out again when its delete fails. A full disk is made with `PRAGMA max_page_count`
/// (`limitPagesForTesting`), without root or a real small file system.
@Suite("DeviceStore: failures")
struct StoreFailureTests {
    @Test(
        "SQLite's result code (and errno, for a file that cannot be opened) gives the cause",
        arguments: [
            (13, 0, StoreError.Kind.full),  // SQLITE_FULL
            (14, EMFILE, .tooManyOpenFiles),  // SQLITE_CANTOPEN, too many open files in the process
            (14, ENFILE, .tooManyOpenFiles),  // ... in the system
            (14, ENOENT, .cannotOpen),  // SQLITE_CANTOPEN, no such folder
            (14, EACCES, .cannotOpen),  // SQLITE_CANTOPEN, permission denied
            (10, 0, .ioError),  // SQLITE_IOERR
            (778, EIO, .ioError),  // SQLITE_IOERR_WRITE
            (8, 0, .readOnly),  // SQLITE_READONLY
            (3, 0, .readOnly),  // SQLITE_PERM
            (11, 0, .corrupt),  // SQLITE_CORRUPT
            (5, 0, .busy),  // SQLITE_BUSY
            (6, 0, .busy),  // SQLITE_LOCKED
            (26, 0, .notADatabase),  // SQLITE_NOTADB
            (19, 0, .other),  // SQLITE_CONSTRAINT
            (1, EMFILE, .other),  // SQLITE_ERROR: errno only matters for CANTOPEN
        ])
    func classifies(code: Int, systemErrno: Int32, kind: StoreError.Kind) {
        #expect(StoreError.Kind(code: Int32(code), systemErrno: systemErrno) == kind)
    }

    @Test("a store opened with every file descriptor taken fails as too many open files, not a permission problem")
    func outOfDescriptors() throws {
        let probe = StoreCrashTests.probePath
        try #require(FileManager.default.isExecutableFile(atPath: probe))
        try withTemporaryDirectory { directory in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: probe)
            process.arguments = ["--out-of-descriptors", directory.file("store.db")]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(printed.hasPrefix("kind=tooManyOpenFiles "), "probe printed: \(printed)")
            #expect(printed.contains("ulimit -n"), "probe printed: \(printed)")
        }
    }

    @Test("an insert into a full store fails with cause full and SQLite's message, and stores nothing")
    func insertWhenFull() throws {
        try withTemporaryDirectory { directory in
            let store = try DeviceStore(path: directory.file("store.db"), retention: .syncing)
            var maker = FixMaker()
            try store.insert(maker.fix(at: 1_000), sessionID: "s", now: 1_000)
            try store.limitPagesForTesting(1)
            var stored = 1
            var failure: StoreError?
            // The limit is the file's size now: its pages' free space runs out within a few
            // hundred 130-byte rows.
            for index in 1..<2_000 {
                do throws(StoreError) {
                    try store.insert(maker.fix(at: 1_000 + Int64(index)), sessionID: "s", now: 1_000)
                    stored += 1
                } catch {
                    failure = error
                    break
                }
            }
            let error = try #require(failure)
            #expect(error.kind == .full)
            #expect(error.code == 13)
            #expect(error.message == "database or disk is full")
            #expect(error.operation == "insert fix")
            #expect(try store.pendingCount() == stored)
            #expect(try store.history(from: .min, to: .max).count == stored)

            try store.limitPagesForTesting(nil)
            try store.insert(maker.fix(at: 9_000), sessionID: "s", now: 9_000)
            #expect(try store.pendingCount() == stored + 1)
        }
    }

    enum Verdict: String, CaseIterable {
        case acknowledged, dropped
    }

    @Test(
        "a batch whose delete fails is never handed out again, across closes, and is deleted once the disk has room",
        arguments: Verdict.allCases, [false, true])
    func heldDeletes(verdict: Verdict, reopened: Bool) throws {
        try withTemporaryDirectory { directory in
            // A pool of one: using the other store closes this one, as a busy fleet's pool does.
            let pool = StorePool(maxOpen: 1)
            let store = DeviceStore(path: directory.file("a/store.db"), retention: .syncing, pool: pool)
            let other = DeviceStore(path: directory.file("b/store.db"), retention: .syncing, pool: pool)
            var maker = FixMaker()
            let fixes = (0..<5).map { maker.fix(at: 1_000 + Int64($0)) }
            for fix in fixes {
                try store.insert(fix, sessionID: "s", now: 2_000)
            }
            try store.insert(maker.event(at: 1_001), sessionID: "s", now: 2_000)
            let batch = try #require(try store.nextBatch(limit: 3))
            #expect(batch.locations == Array(fixes[0..<3]))
            #expect(batch.geofenceEvents.count == 1)

            try store.limitPagesForTesting(1)
            #expect(throws: StoreError.self) {
                switch verdict {
                case .acknowledged: try store.acknowledge(batch)
                case .dropped: try store.drop(batch)
                }
            }
            #expect(store.heldDeleteCount == 4)
            #expect(try store.pendingCount() == 2)
            #expect(try store.pendingEventCount() == 0)
            if reopened {
                _ = try other.pendingCount()
                #expect(!store.isOpen)
            }
            // Still full: the retry fails, and the held rows stay out of every batch.
            let rest = try #require(try store.nextBatch(limit: 10))
            #expect(rest.locations == Array(fixes[3...]))
            #expect(rest.geofenceEvents.isEmpty)
            #expect(store.heldDeleteCount == 4)
            #expect(throws: StoreError.self) { try store.checkWritable() }

            try store.limitPagesForTesting(nil)
            if reopened {
                _ = try other.pendingCount()
            }
            // The next use deletes them: only the rest is left in the file.
            let again = try #require(try store.nextBatch(limit: 10))
            #expect(again.locations == Array(fixes[3...]))
            #expect(store.heldDeleteCount == 0)
            #expect(try store.history(from: .min, to: .max) == Array(fixes[3...]))
            try store.checkWritable()
            try store.acknowledge(again)
            #expect(try store.nextBatch(limit: 10) == nil)
        }
    }

    @Test("a held delete is retried with the next acknowledge, in the same transaction")
    func retriedWithNextAcknowledge() throws {
        try withTemporaryDirectory { directory in
            let store = try DeviceStore(path: directory.file("store.db"), retention: .syncing)
            var maker = FixMaker()
            let fixes = (0..<4).map { maker.fix(at: 1_000 + Int64($0)) }
            for fix in fixes {
                try store.insert(fix, sessionID: "s", now: 2_000)
            }
            let first = try #require(try store.nextBatch(limit: 2))
            try store.limitPagesForTesting(1)
            #expect(throws: StoreError.self) { try store.acknowledge(first) }
            let second = try #require(try store.nextBatch(limit: 2))
            #expect(second.locations == Array(fixes[2...]))
            try store.limitPagesForTesting(nil)
            #expect(try store.acknowledge(second) == 4)
            #expect(store.heldDeleteCount == 0)
            #expect(try store.pendingCount() == 0)
            #expect(try store.history(from: .min, to: .max).isEmpty)
        }
    }
}
