import BeekonDevice
import BeekonStore
import FleetTestSupport
import SQLite
import Testing

/// What a device was told of each batch, kept in its store (`told`) for checking the server's
/// store against: recorded with the delete of the batch's rows, read back whole, over reopening.
@Suite("DeviceStore: what the device was told")
struct ToldBatchTests {
    static let batchA = UUIDv7(high: 0x0190_0000_0000_7000, low: 0x8000_0000_0000_0001)
    static let batchB = UUIDv7(high: 0x0190_0000_0000_7000, low: 0x8000_0000_0000_0002)
    static let batchC = UUIDv7(high: 0x0190_0000_0000_7000, low: 0x8000_0000_0000_0003)

    @Test("an acknowledged batch, a rejected one and an unheard 2xx are read back as recorded, after a reopen")
    func recordedAndReadBack() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("store.db")
            var maker = FixMaker()
            let fixes = (0..<5).map { maker.fix(at: Int64($0) * 1_000) }
            do {
                let store = try DeviceStore(path: path, retention: .syncing)
                for fix in fixes { try store.insert(fix, sessionID: "S", now: 10_000) }
                let first = try #require(try store.nextBatch(limit: 2))
                try store.record(
                    ToldBatch(batchID: Self.batchC, heard: .unheardAcknowledgement, at: 11_000, fixIDs: []))
                try store.acknowledge(first, told: (Self.batchA, 12_000))
                let second = try #require(try store.nextBatch(limit: 3))
                try store.drop(second, told: (Self.batchB, 13_000))
                #expect(try store.nextBatch(limit: 10) == nil)
            }
            let reopened = try DeviceStore(path: path, retention: .syncing)
            let told = try reopened.toldBatches()
            #expect(
                told == [
                    ToldBatch(batchID: Self.batchC, heard: .unheardAcknowledgement, at: 11_000, fixIDs: []),
                    ToldBatch(batchID: Self.batchA, heard: .acknowledged, at: 12_000, fixIDs: fixes[0..<2].map(\.id)),
                    ToldBatch(batchID: Self.batchB, heard: .rejected, at: 13_000, fixIDs: fixes[2..<5].map(\.id)),
                ])
        }
    }

    @Test("a batch whose rows were deleted meanwhile is still told whole: the server got every fix it carried")
    func toldWholeWhenRowsWentMeanwhile() throws {
        try withTemporaryDirectory { directory in
            let store = try DeviceStore(path: directory.file("store.db"), retention: .syncing)
            var maker = FixMaker()
            let fixes = (0..<3).map { maker.fix(at: Int64($0) * 1_000) }
            for fix in fixes { try store.insert(fix, sessionID: "S", now: 10_000) }
            let batch = try #require(try store.nextBatch(limit: 3))
            #expect(try store.deleteLocations(before: nil) == 3)
            #expect(try store.acknowledge(batch, told: (Self.batchA, 12_000)) == 0)
            #expect(try store.toldBatches().map(\.fixIDs) == [fixes.map(\.id)])
        }
    }

    @Test("a store from schema version 3 gains the told table, keeps its rows, and records in it")
    func migratedFromVersionThree() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("store.db")
            var maker = FixMaker()
            let fix = maker.fix(at: 1_000)
            do {
                let store = try DeviceStore(path: path, retention: .syncing)
                try store.insert(fix, sessionID: "S", now: 2_000)
            }
            do {
                let connection = try SQLiteConnection(path: path)
                try connection.execute("DROP TABLE told; PRAGMA user_version = 3;")
            }
            let migrated = try DeviceStore(path: path, retention: .syncing)
            #expect(try migrated.toldBatches().isEmpty)
            let batch = try #require(try migrated.nextBatch(limit: 10))
            #expect(batch.locations == [fix])
            try migrated.acknowledge(batch, told: (Self.batchA, 3_000))
            #expect(
                try migrated.toldBatches() == [
                    ToldBatch(batchID: Self.batchA, heard: .acknowledged, at: 3_000, fixIDs: [fix.id])
                ])
        }
    }
}
