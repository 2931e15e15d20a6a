import BeekonDevice
import BeekonStore
import FleetTestSupport
import Foundation
import SQLite
import Testing

@Suite("The fix ledger: where every admitted fix went, kept in the store's own file")
struct FixLedgerTests {
    /// What a store holding `stored` fixes has done, as one ledger.
    static func ledger(
        admitted: Int, acknowledged: Int = 0, rejected: Int = 0, pending: Int, expired: Int = 0, deleted: Int = 0,
        lost: Int = 0
    ) -> FixLedger {
        FixLedger(
            admitted: admitted, acknowledged: acknowledged, rejected: rejected, pending: pending, expired: expired,
            deleted: deleted, lost: lost)
    }

    enum Step: String, CaseIterable {
        case acknowledgeOne, acknowledgeThree, dropTwo, deleteBefore, deleteAll, retentionCap, retentionAge
    }

    @Test(
        "each way a fix leaves the store is counted as its own outcome, and a reopened store reads the same ledger",
        arguments: Step.allCases)
    func eachOutcome(step: Step) throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("store.db")
            let retention: RetentionPolicy =
                switch step {
                case .retentionCap: RetentionPolicy(maxAge: nil, maxFixes: 6)
                case .retentionAge: RetentionPolicy(maxAge: 5_000)
                default: .syncing
                }
            let store = try DeviceStore(path: path, retention: retention)
            var maker = FixMaker()
            for index in 0..<6 {
                try store.insert(maker.fix(at: 1_000 * Int64(index + 1)), sessionID: "s", now: 6_000)
            }
            #expect(store.ledger == Self.ledger(admitted: 6, pending: 6))
            let expected: FixLedger
            switch step {
            case .acknowledgeOne:
                try store.acknowledge(try #require(try store.nextBatch(limit: 1)))
                expected = Self.ledger(admitted: 6, acknowledged: 1, pending: 5)
            case .acknowledgeThree:
                try store.acknowledge(try #require(try store.nextBatch(limit: 3)))
                expected = Self.ledger(admitted: 6, acknowledged: 3, pending: 3)
            case .dropTwo:
                try store.drop(try #require(try store.nextBatch(limit: 2)))
                expected = Self.ledger(admitted: 6, rejected: 2, pending: 4)
            case .deleteBefore:
                try store.deleteLocations(before: 2_000)
                expected = Self.ledger(admitted: 6, pending: 4, deleted: 2)
            case .deleteAll:
                try store.deleteLocations(before: nil)
                expected = Self.ledger(admitted: 6, pending: 0, deleted: 6)
            case .retentionCap:
                // The seventh fix pushes the oldest out.
                try store.insert(maker.fix(at: 7_000), sessionID: "s", now: 7_000)
                expected = Self.ledger(admitted: 7, pending: 6, expired: 1)
            case .retentionAge:
                // At 9 s, fixes older than 4 s are past the 5 s age limit: 1, 2 and 3 s.
                try store.insert(maker.fix(at: 9_000), sessionID: "s", now: 9_000)
                expected = Self.ledger(admitted: 7, pending: 4, expired: 3)
            }
            #expect(store.ledger == expected)
            #expect(store.ledger?.unaccounted == 0)
            store.close()
            let reopened = try DeviceStore(path: path, retention: retention)
            #expect(reopened.ledger == expected)
        }
    }

    @Test("a fix whose insert failed is admitted and lost, written to the file with the next commit that goes through")
    func lostFixes() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("store.db")
            let store = try DeviceStore(path: path, retention: .syncing)
            var maker = FixMaker()
            try store.insert(maker.fix(at: 1_000), sessionID: "s", now: 1_000)
            store.noteLostFix()
            store.noteLostFix()
            #expect(store.ledger == Self.ledger(admitted: 3, pending: 1, lost: 2))
            try store.insert(maker.fix(at: 2_000), sessionID: "s", now: 2_000)
            #expect(store.ledger == Self.ledger(admitted: 4, pending: 2, lost: 2))
            store.close()
            #expect(
                try DeviceStore(path: path, retention: .syncing).ledger == Self.ledger(admitted: 4, pending: 2, lost: 2)
            )
        }
    }

    @Test("losses not yet written are forgotten with the process, as the fixes were: the ledger still adds up")
    func lossesForgotten() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("store.db")
            do {
                let store = try DeviceStore(path: path, retention: .syncing)
                var maker = FixMaker()
                try store.insert(maker.fix(at: 1_000), sessionID: "s", now: 1_000)
                store.noteLostFix()
            }
            let reopened = try DeviceStore(path: path, retention: .syncing)
            #expect(reopened.ledger == Self.ledger(admitted: 1, pending: 1))
        }
    }

    @Test("losses reach the file with the write probe that ends a store failure")
    func lossesWithTheProbe() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("store.db")
            let store = try DeviceStore(path: path, retention: .syncing)
            store.noteLostFix()
            try store.checkWritable()
            store.close()
            #expect(try DeviceStore(path: path).ledger == Self.ledger(admitted: 1, pending: 0, lost: 1))
        }
    }

    @Test(
        "an acknowledged batch whose delete fails stays pending until its delete goes through, then counts once"
    )
    func heldDelete() throws {
        try withTemporaryDirectory { directory in
            let store = try DeviceStore(path: directory.file("store.db"), retention: .syncing)
            var maker = FixMaker()
            for index in 1...3 {
                try store.insert(maker.fix(at: Int64(index) * 1_000), sessionID: "s", now: 3_000)
            }
            let accepted = try #require(try store.nextBatch(limit: 2))
            try store.limitPagesForTesting(1)
            #expect(throws: StoreError.self) { try store.acknowledge(accepted) }
            #expect(store.ledger == Self.ledger(admitted: 3, pending: 3))
            try store.limitPagesForTesting(nil)
            try store.retryHeldDeletes()
            #expect(store.ledger == Self.ledger(admitted: 3, acknowledged: 2, pending: 1))
            let refused = try #require(try store.nextBatch(limit: 5))
            try store.limitPagesForTesting(1)
            #expect(throws: StoreError.self) { try store.drop(refused) }
            try store.limitPagesForTesting(nil)
            try store.retryHeldDeletes()
            #expect(store.ledger == Self.ledger(admitted: 3, acknowledged: 2, rejected: 1, pending: 0))
        }
    }

    @Test("a store from schema version 1 counts the fixes it holds as admitted and pending")
    func migratedFromVersionOne() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("store.db")
            let store = try DeviceStore(path: path, retention: .syncing)
            var maker = FixMaker()
            for index in 1...4 {
                try store.insert(maker.fix(at: Int64(index) * 1_000), sessionID: "s", now: 4_000)
            }
            store.close()
            // Back to version 1, as an older build left it.
            do {
                let connection = try SQLiteConnection(path: path)
                try connection.execute(
                    """
                    DROP TRIGGER fix_removed; DROP TABLE fix_ledger; DROP TABLE told;
                    PRAGMA user_version = 1;
                    """)
            }
            let migrated = try DeviceStore(path: path, retention: .syncing)
            #expect(migrated.ledger == Self.ledger(admitted: 4, pending: 4))
            try migrated.acknowledge(try #require(try migrated.nextBatch(limit: 4)))
            #expect(migrated.ledger == Self.ledger(admitted: 4, acknowledged: 4, pending: 0))
        }
    }

    @Test("a store from schema version 2, which counted inserts too, keeps its ledger and stops counting them")
    func migratedFromVersionTwo() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("store.db")
            let store = try DeviceStore(path: path, retention: .syncing)
            var maker = FixMaker()
            for index in 1...3 {
                try store.insert(maker.fix(at: Int64(index) * 1_000), sessionID: "s", now: 3_000)
            }
            try store.drop(try #require(try store.nextBatch(limit: 1)))
            store.close()
            // Back to version 2, as the build before left it: inserts counted by a trigger.
            do {
                let connection = try SQLiteConnection(path: path)
                try connection.execute(
                    """
                    ALTER TABLE fix_ledger ADD COLUMN admitted INTEGER NOT NULL DEFAULT 0;
                    UPDATE fix_ledger SET admitted = 3;
                    CREATE TRIGGER fix_admitted AFTER INSERT ON locations
                    BEGIN UPDATE fix_ledger SET admitted = admitted + 1; END;
                    DROP TABLE told;
                    PRAGMA user_version = 2;
                    """)
            }
            let migrated = try DeviceStore(path: path, retention: .syncing)
            #expect(migrated.ledger == Self.ledger(admitted: 3, rejected: 1, pending: 2))
            try migrated.insert(maker.fix(at: 4_000), sessionID: "s", now: 4_000)
            #expect(migrated.ledger == Self.ledger(admitted: 4, rejected: 1, pending: 3))
        }
    }
}
