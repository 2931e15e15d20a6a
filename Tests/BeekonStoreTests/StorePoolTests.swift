import BeekonDevice
import FleetTestSupport
import Foundation
import Testing

@testable import BeekonStore

@Suite("StorePool")
struct StorePoolTests {
    /// How many of this process's open file descriptors point into `folder`.
    static func openFiles(under folder: String) -> Int {
        let descriptors =
            (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.filter { descriptor in
            let target = try? FileManager.default.destinationOfSymbolicLink(
                atPath: "/proc/self/fd/\(descriptor)")
            return target?.hasPrefix(folder) ?? false
        }.count
    }

    @Test(
        "a pool of 2 over 5 stores written round robin loses and reorders nothing and never has more than 2 open"
    )
    func roundRobin() throws {
        try withTemporaryDirectory { directory in
            let pool = StorePool(maxOpen: 2)
            let stores = (0..<5).map {
                DeviceStore(
                    path: directory.file("device-\($0)/store.db"), retention: .syncing, pool: pool)
            }
            var maker = FixMaker()
            var expected: [[Location]] = Array(repeating: [], count: stores.count)
            for round in 0..<20 {
                for (index, store) in stores.enumerated() {
                    let fix = maker.fix(at: Int64(round * 100 + index))
                    try store.insert(fix, sessionID: "s\(index)", now: 10_000)
                    expected[index].append(fix)
                    #expect(pool.openCount <= 2)
                    #expect(stores.filter(\.isOpen).count == pool.openCount)
                    // Three descriptors per open store: database, -wal and the one holding its
                    // lock (the WAL index is on the heap of the connection that holds the lock).
                    #expect(Self.openFiles(under: directory.path) <= 2 * 3)
                }
            }
            #expect(pool.evictionCount > 0)
            for (index, store) in stores.enumerated() {
                #expect(try store.history(from: .min, to: .max) == expected[index])
                #expect(try store.pendingCount() == expected[index].count)
                #expect(pool.openCount <= 2)
            }
            // Draining through the pool too.
            for (index, store) in stores.enumerated() {
                var drained: [Location] = []
                while let batch = try store.nextBatch(limit: 7) {
                    #expect(batch.sessionID == "s\(index)")
                    drained += batch.locations
                    try store.acknowledge(batch)
                    #expect(pool.openCount <= 2)
                }
                #expect(drained == expected[index])
            }
        }
    }

    @Test(
        """
        a store the pool closes keeps a small WAL and checkpoints a large one away, so reopening \
        and writing over and over never grows its WAL past the bound
        """)
    func reopenedWALStaysBounded() throws {
        try withTemporaryDirectory { directory in
            let pool = StorePool(maxOpen: 1)
            let paths = (0..<2).map { directory.file("device-\($0)/beekon.db") }
            let stores = paths.map { DeviceStore(path: $0, retention: .syncing, pool: pool) }
            var maker = FixMaker()
            var largest = 0
            var checkpointedAway = 0
            for round in 0..<300 {
                let index = round % 2
                try stores[index].insert(maker.fix(at: Int64(round) * 1_000), sessionID: "s", now: 400_000)
                // Writing one store closed the other: its WAL is gone or within the bound.
                let other = paths[1 - index] + "-wal"
                if let size = try? FileManager.default.attributesOfItem(atPath: other)[.size] as? Int {
                    largest = max(largest, size)
                } else if round > 0 {
                    checkpointedAway += 1
                }
            }
            #expect(largest <= StoreTuning.walKeptOnCloseBytes)
            #expect(checkpointedAway > 0)
            for store in stores { #expect(try store.pendingCount() == 150) }
            pool.closeAll()
        }
    }

    @Test("a full pool closes exactly one open store to make room, and every store keeps its rows")
    func fullPoolClosesOne() throws {
        try withTemporaryDirectory { directory in
            let pool = StorePool(maxOpen: 2)
            let a = DeviceStore(path: directory.file("a.db"), pool: pool)
            let b = DeviceStore(path: directory.file("b.db"), pool: pool)
            let c = DeviceStore(path: directory.file("c.db"), pool: pool)
            var maker = FixMaker()
            try a.insert(maker.fix(at: 1), sessionID: "", now: 1)
            try b.insert(maker.fix(at: 2), sessionID: "", now: 2)
            try c.insert(maker.fix(at: 3), sessionID: "", now: 3)
            #expect(c.isOpen && a.isOpen != b.isOpen)
            #expect(pool.openCount == 2)
            #expect(pool.evictionCount == 1)

            pool.closeAll()
            #expect(pool.openCount == 0)
            #expect(!a.isOpen && !b.isOpen && !c.isOpen)
            #expect(try b.history(from: 0, to: 10).count == 1)
            #expect(pool.openCount == 1)
        }
    }

    @Test("a pool a little smaller than a fleet visited in turn still finds most stores open")
    func cyclicVisitsMostlyHit() throws {
        try withTemporaryDirectory { directory in
            let pool = StorePool(maxOpen: 18)
            let stores = (0..<20).map { DeviceStore(path: directory.file("s\($0).db"), pool: pool) }
            var maker = FixMaker()
            for store in stores { try store.insert(maker.fix(at: 0), sessionID: "", now: 0) }
            let before = pool.evictionCount
            for round in 1...20 {
                for store in stores { try store.insert(maker.fix(at: Int64(round)), sessionID: "", now: 0) }
            }
            // Least-recently-used would close a store on each of the 400 visits.
            #expect(pool.evictionCount - before < 200)
        }
    }

    @Test("a store made with a pool touches no file until first used")
    func lazyOpen() throws {
        try withTemporaryDirectory { directory in
            let pool = StorePool(maxOpen: 4)
            let path = directory.file("later/store.db")
            let store = DeviceStore(path: path, pool: pool)
            #expect(!store.isOpen)
            #expect(!FileManager.default.fileExists(atPath: directory.file("later")))
            let pending = try store.pendingCount()
            #expect(pending == 0)
            #expect(store.isOpen)
            #expect(FileManager.default.fileExists(atPath: path))
        }
    }

    @Test("a closed store answers pending counts from memory and reopens with the same history")
    func closedStoreKeepsCounts() throws {
        try withTemporaryDirectory { directory in
            let pool = StorePool(maxOpen: 1)
            let store = DeviceStore(
                path: directory.file("store.db"), retention: .syncing, pool: pool)
            var maker = FixMaker()
            let fixes = (0..<5).map { maker.fix(at: Int64($0)) }
            for fix in fixes {
                try store.insert(fix, sessionID: "s", now: 10)
            }
            try store.insert(maker.event(at: 3), sessionID: "s", now: 10)
            store.close()
            #expect(try store.pendingCount() == 5)
            #expect(try store.pendingEventCount() == 1)
            #expect(!store.isOpen)
            #expect(try store.history(from: .min, to: .max) == fixes)
            #expect(store.isOpen)
        }
    }

    @Test("releasing memory keeps every row and the store keeps working")
    func releaseMemory() throws {
        try withTemporaryDirectory { directory in
            let pool = StorePool(maxOpen: 8)
            var maker = FixMaker()
            let stores = (0..<3).map {
                DeviceStore(path: directory.file("\($0).db"), retention: .syncing, pool: pool)
            }
            var expected: [[Location]] = [[], [], []]
            for round in 0..<4 {
                for (index, store) in stores.enumerated() {
                    let fix = maker.fix(at: Int64(round * 10 + index))
                    try store.insert(fix, sessionID: "", now: 100)
                    expected[index].append(fix)
                }
                pool.releaseMemory()
            }
            stores[0].releaseMemory()
            for (index, store) in stores.enumerated() {
                #expect(store.isOpen)
                #expect(try store.history(from: .min, to: .max) == expected[index])
            }
        }
    }
}
