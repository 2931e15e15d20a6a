import BeekonDevice
import BeekonStore
import FleetTestSupport
import Testing

@Suite("DeviceStore: retention")
struct DeviceStoreRetentionTests {
    static let day: Int64 = 24 * 60 * 60 * 1000

    @Test(
        "the standard policies: seven days only when local-only, caps of 100 000 fixes and 10 000 events always"
    )
    func standardPolicies() {
        #expect(RetentionPolicy.standard(syncEnabled: false).maxAge == 7 * Self.day)
        #expect(RetentionPolicy.standard(syncEnabled: true).maxAge == nil)
        for policy in [RetentionPolicy.localOnly, .syncing] {
            #expect(policy.maxFixes == 100_000)
            #expect(policy.maxEvents == 10_000)
        }
    }

    @Test("local-only mode deletes fixes and events older than seven days at the next write")
    func localOnlyAgeLimit() throws {
        try withTemporaryDirectory { directory in
            let store = try DeviceStore(path: directory.file("store.db"), retention: .localOnly)
            var maker = FixMaker()
            let now = 30 * Self.day
            let tooOld = maker.fix(at: now - 7 * Self.day - 1)
            let justInside = maker.fix(at: now - 7 * Self.day)
            let oldEvent = maker.event(at: now - 8 * Self.day)
            let recentEvent = maker.event(at: now - Self.day)
            // Stored when they were fresh.
            try store.insert(tooOld, sessionID: "s", now: tooOld.timestamp)
            try store.insert(justInside, sessionID: "s", now: justInside.timestamp)
            try store.insert(oldEvent, sessionID: "s", now: oldEvent.timestamp)
            try store.insert(recentEvent, sessionID: "s", now: recentEvent.timestamp)
            #expect(try store.pendingCount() == 2)
            #expect(try store.pendingEventCount() == 2)

            let fresh = maker.fix(at: now)
            try store.insert(fresh, sessionID: "s", now: now)

            #expect(try store.history(from: .min, to: .max) == [justInside, fresh])
            #expect(try store.pendingCount() == 2)
            #expect(try store.pendingEventCount() == 1)
            let batch = try #require(try store.nextBatch(limit: 10))
            #expect(batch.geofenceEvents == [recentEvent])
        }
    }

    @Test("local-only mode prunes a fix that is already older than seven days when stored")
    func staleFixPrunedAtOnce() throws {
        try withTemporaryDirectory { directory in
            let store = try DeviceStore(path: directory.file("store.db"), retention: .localOnly)
            var maker = FixMaker()
            let now = 30 * Self.day
            try store.insert(maker.fix(at: now - 8 * Self.day), sessionID: "s", now: now)
            #expect(try store.pendingCount() == 0)
            #expect(try store.history(from: .min, to: .max).isEmpty)
        }
    }

    @Test("with sync on, rows of any age are kept")
    func syncKeepsOldRows() throws {
        try withTemporaryDirectory { directory in
            let store = try DeviceStore(path: directory.file("store.db"), retention: .syncing)
            var maker = FixMaker()
            let now = 30 * Self.day
            let old = maker.fix(at: now - 20 * Self.day)
            try store.insert(old, sessionID: "s", now: old.timestamp)
            try store.insert(
                maker.event(at: now - 20 * Self.day), sessionID: "s", now: old.timestamp)
            let fresh = maker.fix(at: now)
            try store.insert(fresh, sessionID: "s", now: now)
            #expect(try store.history(from: .min, to: .max) == [old, fresh])
            #expect(try store.pendingEventCount() == 1)
        }
    }

    @Test("caps keep the newest fixes and events, trimming from the oldest end")
    func capsKeepNewest() throws {
        try withTemporaryDirectory { directory in
            let policy = RetentionPolicy(maxAge: nil, maxFixes: 5, maxEvents: 3)
            let store = try DeviceStore(path: directory.file("store.db"), retention: policy)
            var maker = FixMaker()
            let fixes = (1...8).map { maker.fix(at: Int64($0) * 1_000) }
            for fix in fixes {
                try store.insert(fix, sessionID: "s", now: 100_000)
                #expect(try store.pendingCount() <= 5)
            }
            #expect(try store.history(from: .min, to: .max) == Array(fixes[3...]))

            // Oldest by timestamp, not by arrival: a late fix older than all is the one trimmed.
            let late = maker.fix(at: 500)
            try store.insert(late, sessionID: "s", now: 100_000)
            #expect(try store.history(from: .min, to: .max) == Array(fixes[3...]))

            let events = (1...5).map { maker.event(at: Int64($0) * 1_000) }
            for event in events {
                try store.insert(event, sessionID: "s", now: 100_000)
            }
            #expect(try store.pendingEventCount() == 3)
            let batch = try #require(try store.nextBatch(limit: 100))
            #expect(batch.geofenceEvents == Array(events[2...]))
        }
    }

    @Test("a changed policy applies from the next write")
    func changedPolicy() throws {
        try withTemporaryDirectory { directory in
            let store = try DeviceStore(path: directory.file("store.db"), retention: .syncing)
            var maker = FixMaker()
            let fixes = (1...10).map { maker.fix(at: Int64($0)) }
            for fix in fixes {
                try store.insert(fix, sessionID: "s", now: 100)
            }
            store.retention = RetentionPolicy(maxAge: nil, maxFixes: 4, maxEvents: 4)
            #expect(try store.pendingCount() == 10)
            let next = maker.fix(at: 11)
            try store.insert(next, sessionID: "s", now: 100)
            #expect(try store.history(from: .min, to: .max) == Array(fixes[7...]) + [next])
        }
    }

    @Test("counts and the age limit stay right across close and reopen")
    func retentionAfterReopen() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("store.db")
            var maker = FixMaker()
            let now = 30 * Self.day
            let old = maker.fix(at: now - 10 * Self.day)
            let kept = maker.fix(at: now - 6 * Self.day)
            do {
                // Both are within seven days of this earlier clock reading.
                let store = try DeviceStore(path: path, retention: .localOnly)
                try store.insert(old, sessionID: "s", now: kept.timestamp)
                try store.insert(kept, sessionID: "s", now: kept.timestamp)
            }
            let store = try DeviceStore(path: path, retention: .localOnly)
            #expect(try store.pendingCount() == 2)
            let fresh = maker.fix(at: now)
            try store.insert(fresh, sessionID: "s", now: now)
            #expect(try store.history(from: .min, to: .max) == [kept, fresh])
            #expect(try store.pendingCount() == 2)
        }
    }
}
