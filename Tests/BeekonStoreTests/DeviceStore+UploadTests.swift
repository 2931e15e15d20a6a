import BeekonDevice
import BeekonStore
import FleetTestSupport
import Testing

@Suite("DeviceStore: pending batches")
struct DeviceStoreUploadTests {
    @Test("nextBatch is nil when nothing is pending")
    func emptyStore() throws {
        try withTemporaryDirectory { directory in
            let store = try DeviceStore(path: directory.file("store.db"), retention: .syncing)
            #expect(try store.nextBatch(limit: 100) == nil)
            #expect(try store.pendingCount() == 0)
        }
    }

    @Test("nextBatch takes the session of the oldest pending row, geofence events included")
    func oldestSessionCountsEvents() throws {
        try withTemporaryDirectory { directory in
            let store = try DeviceStore(path: directory.file("store.db"), retention: .syncing)
            var maker = FixMaker()
            let fixA = maker.fix(at: 2_000)
            let eventB = maker.event(at: 1_000)
            let fixB = maker.fix(at: 3_000)
            let eventA = maker.event(at: 4_000)
            try store.insert(fixA, sessionID: "A", now: 5_000)
            try store.insert(eventB, sessionID: "B", now: 5_000)
            try store.insert(fixB, sessionID: "B", now: 5_000)
            try store.insert(eventA, sessionID: "A", now: 5_000)

            let first = try #require(try store.nextBatch(limit: 100))
            #expect(first.sessionID == "B")
            #expect(first.locations == [fixB])
            #expect(first.geofenceEvents == [eventB])
            try store.acknowledge(first)

            let second = try #require(try store.nextBatch(limit: 100))
            #expect(second.sessionID == "A")
            #expect(second.locations == [fixA])
            #expect(second.geofenceEvents == [eventA])
            try store.acknowledge(second)
            #expect(try store.nextBatch(limit: 100) == nil)
        }
    }

    @Test("a batch never mixes sessions, even when their rows interleave in time")
    func neverMixesSessions() throws {
        try withTemporaryDirectory { directory in
            let store = try DeviceStore(path: directory.file("store.db"), retention: .syncing)
            var maker = FixMaker()
            var expected: [String: [Location]] = [:]
            for index in 0..<20 {
                let session = index % 3 == 0 ? "A" : "B"
                let fix = maker.fix(at: Int64(index) * 1_000)
                expected[session, default: []].append(fix)
                try store.insert(fix, sessionID: session, now: 100_000)
            }
            var seen: [String: [Location]] = [:]
            while let batch = try store.nextBatch(limit: 4) {
                let session = batch.sessionID
                // Every fix in the batch is one of this session's fixes.
                #expect(batch.locations.allSatisfy { expected[session]!.contains($0) })
                seen[session, default: []] += batch.locations
                try store.acknowledge(batch)
            }
            #expect(seen == expected)
            #expect(try store.pendingCount() == 0)
        }
    }

    @Test("batches respect the limit, take the oldest fixes first and drain batch after batch")
    func limitAndDrain() throws {
        try withTemporaryDirectory { directory in
            let store = try DeviceStore(path: directory.file("store.db"), retention: .syncing)
            var maker = FixMaker()
            // Inserted newest first, so the order must come from the timestamps.
            let fixes = (0..<25).map { maker.fix(at: 1_000 + Int64($0)) }
            for fix in fixes.reversed() {
                try store.insert(fix, sessionID: "s", now: 10_000)
            }
            var sizes: [Int] = []
            var drained: [Location] = []
            while let batch = try store.nextBatch(limit: 10) {
                sizes.append(batch.locations.count)
                drained += batch.locations
                try store.acknowledge(batch)
                #expect(try store.pendingCount() == fixes.count - drained.count)
            }
            #expect(sizes == [10, 10, 5])
            #expect(drained == fixes)
        }
    }

    @Test("a batch of only geofence events is made when its session has no fixes")
    func eventsOnlyBatch() throws {
        try withTemporaryDirectory { directory in
            let store = try DeviceStore(path: directory.file("store.db"), retention: .syncing)
            var maker = FixMaker()
            let event = maker.event(at: 1_000)
            try store.insert(event, sessionID: "", now: 1_000)
            try store.insert(maker.fix(at: 2_000), sessionID: "tracking", now: 2_000)
            let batch = try #require(try store.nextBatch(limit: 50))
            #expect(batch.sessionID == "")
            #expect(batch.locations.isEmpty)
            #expect(batch.geofenceEvents == [event])
            #expect(try store.drop(batch) == 1)
            #expect(try store.pendingEventCount() == 0)
            #expect(try store.pendingCount() == 1)
        }
    }

    @Test("acknowledge deletes only the batch's rows, not rows stored after it was read")
    func acknowledgeOnlyBatch() throws {
        try withTemporaryDirectory { directory in
            let store = try DeviceStore(path: directory.file("store.db"), retention: .syncing)
            var maker = FixMaker()
            let old = (0..<3).map { maker.fix(at: Int64($0)) }
            for fix in old {
                try store.insert(fix, sessionID: "s", now: 100)
            }
            try store.insert(maker.event(at: 1), sessionID: "s", now: 100)
            let batch = try #require(try store.nextBatch(limit: 10))
            let newer = maker.fix(at: 50)
            let newerEvent = maker.event(at: 51)
            try store.insert(newer, sessionID: "s", now: 100)
            try store.insert(newerEvent, sessionID: "s", now: 100)

            #expect(try store.acknowledge(batch) == 4)
            #expect(try store.history(from: .min, to: .max) == [newer])
            #expect(try store.pendingCount() == 1)
            let rest = try #require(try store.nextBatch(limit: 10))
            #expect(rest.geofenceEvents == [newerEvent])
        }
    }

    @Test(
        "a batch of any size is deleted whole and counted by its cause, and a reopened store agrees",
        arguments: [(1, false), (2, false), (100, false), (500, false), (100, true), (500, true)])
    func wholeBatchDeleted(size: Int, rejected: Bool) throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("store.db")
            var maker = FixMaker()
            do {
                let store = try DeviceStore(path: path, retention: .syncing)
                for index in 0..<(size + 3) {
                    try store.insert(maker.fix(at: Int64(index)), sessionID: "s", now: 10_000)
                }
                let batch = try #require(try store.nextBatch(limit: size))
                #expect(batch.locations.count == size)
                #expect(try (rejected ? store.drop(batch) : store.acknowledge(batch)) == size)
                #expect(try store.pendingCount() == 3)
                #expect(store.ledger?.acknowledged == (rejected ? 0 : size))
                #expect(store.ledger?.rejected == (rejected ? size : 0))
                store.close()
            }
            let reopened = try DeviceStore(path: path, retention: .syncing)
            #expect(try reopened.pendingCount() == 3)
            #expect(reopened.ledger?.acknowledged == (rejected ? 0 : size))
            #expect(reopened.ledger?.rejected == (rejected ? size : 0))
            #expect(reopened.ledger?.admitted == size + 3)
        }
    }

    @Test("acknowledge and drop leave alone a new row that reused a deleted row's seq")
    func seqReuse() throws {
        try withTemporaryDirectory { directory in
            let store = try DeviceStore(path: directory.file("store.db"), retention: .syncing)
            var maker = FixMaker()
            try store.insert(maker.fix(at: 1), sessionID: "s", now: 10)
            try store.insert(maker.fix(at: 2), sessionID: "s", now: 10)
            let inFlight = try #require(try store.nextBatch(limit: 10))
            #expect(inFlight.locations.count == 2)

            // The app wipes history during the upload; new fixes then take seq 1 and 2 again.
            #expect(try store.deleteLocations(before: nil) == 2)
            let replacements = [maker.fix(at: 3), maker.fix(at: 4)]
            for fix in replacements {
                try store.insert(fix, sessionID: "s", now: 10)
            }

            #expect(try store.acknowledge(inFlight) == 0)
            #expect(try store.drop(inFlight) == 0)
            #expect(try store.history(from: .min, to: .max) == replacements)
            #expect(try store.pendingCount() == 2)
        }
    }

    @Test("drop deletes exactly the batch's fixes and events")
    func dropBatch() throws {
        try withTemporaryDirectory { directory in
            let store = try DeviceStore(path: directory.file("store.db"), retention: .syncing)
            var maker = FixMaker()
            let fixes = (0..<5).map { maker.fix(at: Int64($0)) }
            for fix in fixes {
                try store.insert(fix, sessionID: "s", now: 10)
            }
            try store.insert(maker.event(at: 2), sessionID: "s", now: 10)
            let batch = try #require(try store.nextBatch(limit: 3))
            #expect(batch.locations == Array(fixes[0..<3]))
            #expect(try store.drop(batch) == 4)
            #expect(try store.history(from: .min, to: .max) == Array(fixes[3...]))
            #expect(try store.pendingEventCount() == 0)
        }
    }
    @Test(
        """
        resending a batch sent before hands out what is left of exactly its rows, in its order, before anything \
        newer and whatever the limit, after a reopen too; rows deleted, or replaced under a reused seq, stay out; \
        with none left it is the next batch as usual
        """)
    func resendingASentBatch() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("store.db")
            var store = try DeviceStore(path: path, retention: .syncing)
            var maker = FixMaker()
            let fixes = (0..<3).map { maker.fix(at: 1_000 + Int64($0)) }
            let event = maker.event(at: 1_001)
            for fix in fixes { try store.insert(fix, sessionID: "s", now: 10_000) }
            try store.insert(event, sessionID: "s", now: 10_000)
            let first = try #require(try store.nextBatch(limit: 3))
            let sent = SentBatch(
                batchID: try #require(UUIDv7("019eca4c-0828-7613-bcbd-f432f141601d")), batch: first, assembledAt: 1_003)
            // Newer rows arrive (an older-stamped fix of another session too); the process dies.
            let newer = [maker.fix(at: 2_000), maker.fix(at: 2_001)]
            for fix in newer { try store.insert(fix, sessionID: "s", now: 10_000) }
            try store.insert(maker.event(at: 2_000), sessionID: "s", now: 10_000)
            try store.insert(maker.fix(at: 500), sessionID: "t", now: 10_000)
            store.close()
            store = try DeviceStore(path: path, retention: .syncing)

            for limit in [1, 3, 100] {
                let again = try #require(try store.nextBatch(limit: limit, resending: sent))
                #expect(again == first, "limit \(limit)")
                #expect(sent.holds(again))
            }
            #expect(try store.nextBatch(limit: 100, resending: nil)?.sessionID == "t", "without it, the oldest row")

            // The app deletes up to the batch's oldest fix (session t's with it): the rest of the batch goes.
            #expect(try store.deleteLocations(before: 1_000) == 2)
            let rest = try #require(try store.nextBatch(limit: 100, resending: sent))
            #expect(rest.locations == Array(fixes[1...]) && rest.geofenceEvents == [event])
            #expect(sent.holds(rest))

            // Every fix deleted, and new ones taking their seqs: only the event is left of the batch.
            #expect(try store.deleteLocations(before: nil) == 4)
            let replacements = (0..<3).map { maker.fix(at: 3_000 + Int64($0)) }
            for fix in replacements { try store.insert(fix, sessionID: "s", now: 10_000) }
            let eventOnly = try #require(try store.nextBatch(limit: 100, resending: sent))
            #expect(eventOnly.locations.isEmpty && eventOnly.geofenceEvents == [event])

            // Acknowledged: nothing of it is left, so the next batch is the oldest as usual.
            try store.acknowledge(eventOnly)
            let next = try #require(try store.nextBatch(limit: 2, resending: sent))
            #expect(next.locations == Array(replacements.prefix(2)))
            #expect(!sent.holds(next))
        }
    }
}
