import HTTPMessage
import HTTPTypes
import Testing

@testable import BeekonDevice

/// Drives a `SyncEngine` on a manual clock, answering its store requests from an in-memory list.
struct SyncHarness {
    var engine: SyncEngine
    var now: Int64 = 1_781_526_896_789
    var ids = UUIDv7Generator()
    var rng = SplitMix64(seed: 5)
    var pending: [Location] = []
    var actions: [DeviceAction] = []

    init(
        platform: Platform = .ios,
        sync: SyncConfig? = SyncConfig(url: "https://ingest.test/locations", intervalSeconds: 60)
    ) {
        engine = SyncEngine(platform: platform, identity: DeviceIdentity(installID: "install", platform: platform))
        actions = engine.configure(sync, restoringAuth: nil, now: now)
    }

    mutating func addFixes(_ count: Int) {
        for _ in 0..<count {
            now += 1000
            pending.append(
                Location(id: ids.next(atUnixMillis: now, using: &rng), latitude: 1, longitude: 2, timestamp: now)!)
            actions += engine.fixPersisted(now: now)
        }
    }

    /// Answers a `loadBatch` in `actions`, as the store would.
    mutating func answerLoad() {
        guard let index = actions.firstIndex(where: { if case .loadBatch = $0 { true } else { false } }),
            case .loadBatch(let limit, _) = actions[index]
        else { return }
        actions.remove(at: index)
        let rows = Array(pending.prefix(limit))
        let batch =
            rows.isEmpty
            ? nil
            : PendingBatch(
                sessionID: "s", locations: rows, fixRows: rows.indices.map { Int64($0) }, geofenceEvents: [],
                eventRows: [])
        actions += engine.batchLoaded(batch, now: now, ids: &ids, using: &rng)
    }

    var sentRequest: UploadRequest? {
        for case .sendBatch(let request) in actions.reversed() { return request }
        return nil
    }

    mutating func answerUpload(_ status: Int, headers: HTTPFields = [:]) {
        guard let request = sentRequest else {
            Issue.record("no upload was sent")
            return
        }
        actions = engine.uploadFinished(
            batchID: request.payload.batchID, outcome: .response(status: status, headers: headers, body: []), now: now)
        for case .acknowledgeBatch(let batch, _) in actions {
            pending.removeFirst(batch.locations.count)
        }
        for case .dropBatch(let batch, _) in actions {
            pending.removeFirst(batch.locations.count)
        }
    }

    var retryAt: Int64? {
        for case .armTimer(.uploadRetry, let at) in actions { return at }
        return nil
    }

    var statuses: [SyncStatus] {
        actions.compactMap { if case .emitSyncStatus(let status) = $0 { status } else { nil } }
    }
}

@Suite("Sync engine")
struct SyncEngineTests {
    @Test("local-only mode never asks for anything that touches the network")
    func localOnly() {
        var harness = SyncHarness(sync: nil)
        harness.addFixes(50)
        harness.actions += harness.engine.syncCalled(now: harness.now)
        harness.actions += harness.engine.geofenceEventRecorded(now: harness.now)
        harness.actions += harness.engine.sessionStopped(now: harness.now)
        harness.actions += harness.engine.networkChanged(online: false, now: harness.now)
        harness.actions += harness.engine.networkChanged(online: true, now: harness.now)
        harness.actions += harness.engine.timerFired(.syncInterval, now: harness.now)
        for action in harness.actions {
            switch action {
            case .loadBatch, .sendBatch, .sendRefresh, .armTimer(.syncInterval, _):
                Issue.record("local-only device asked for \(action)")
            default: break
            }
        }
    }

    @Test("sync() drains batch after batch, one upload in flight, oldest first, then idle")
    func drains() {
        var harness = SyncHarness(sync: SyncConfig(url: "https://ingest.test/l", batchSize: 100))
        harness.addFixes(250)
        harness.actions = harness.engine.syncCalled(now: harness.now)
        var sizes: [Int] = []
        var batchIDs: Set<UUIDv7> = []
        while case .loadBatch = harness.actions.last {
            harness.answerLoad()
            guard let request = harness.sentRequest else { break }
            #expect(harness.engine.syncCalled(now: harness.now).isEmpty)  // one in flight
            sizes.append(request.payload.locations.count)
            batchIDs.insert(request.payload.batchID)
            harness.answerUpload(200)
        }
        harness.answerLoad()
        #expect(sizes == [100, 100, 50])
        #expect(batchIDs.count == 3)
        #expect(harness.pending.isEmpty)
        #expect(harness.statuses.last == .idle)
        #expect(harness.engine.phase == .idle)
    }

    @Test(
        "every row of the status table does what seed 05 says to the batch",
        arguments: [
            (200, "delete"), (204, "delete"), (400, "drop"), (422, "drop"),
            (408, "keep"), (429, "keep"), (500, "keep"), (503, "keep"), (413, "keep"), (404, "keep"), (302, "keep"),
            (418, "keep"),
            (401, "suspend"), (403, "suspend"),
        ])
    func statusTable(status: Int, effect: String) {
        var harness = SyncHarness()
        harness.addFixes(3)
        harness.actions = harness.engine.syncCalled(now: harness.now)
        harness.answerLoad()
        harness.answerUpload(status)
        let deleted = harness.actions.contains { if case .acknowledgeBatch = $0 { true } else { false } }
        let dropped = harness.actions.contains { if case .dropBatch = $0 { true } else { false } }
        switch effect {
        case "delete":
            #expect(deleted && !dropped)
            #expect(harness.statuses.first == .succeeded(count: 3))
        case "drop":
            #expect(dropped && !deleted)
            #expect(harness.statuses.first == .failed(.rejected))
        case "keep":
            #expect(!deleted && !dropped)
            #expect(harness.retryAt == harness.now + 120_000)
            #expect(harness.statuses == [.retrying(attempt: 1, nextAt: harness.now + 120_000)])
        default:
            // 401/403 with no refresh URL: keep the rows and pause until configure() or sync().
            #expect(!deleted && !dropped)
            #expect(harness.statuses == [.failed(.auth)])
            #expect(harness.retryAt == nil)
        }
    }

    @Test("a retry re-sends the same rows under the same batch_id; backoff doubles to 2^4", arguments: [60, 300])
    func backoffSchedule(interval: Int) {
        var harness = SyncHarness(sync: SyncConfig(url: "u", intervalSeconds: interval))
        harness.addFixes(2)
        harness.actions = harness.engine.syncCalled(now: harness.now)
        harness.answerLoad()
        let firstID = harness.sentRequest!.payload.batchID
        var delays: [Int64] = []
        for _ in 0..<6 {
            harness.answerUpload(503)
            let retryAt = harness.retryAt!
            delays.append((retryAt - harness.now) / 1000)
            harness.now = retryAt
            harness.actions = harness.engine.timerFired(.uploadRetry, now: harness.now)
            #expect(harness.sentRequest?.payload.batchID == firstID)
            #expect(harness.sentRequest?.payload.locations.map(\.id) == harness.pending.map(\.id))
        }
        let i = Int64(interval)
        #expect(delays == [2 * i, 4 * i, 8 * i, 16 * i, 16 * i, 16 * i].map { min($0, 3600) })
        harness.answerUpload(200)
        #expect(harness.engine.failures == 0)
    }

    @Test(
        "Retry-After on 429/503 is honoured when longer than the backoff, ignored when shorter",
        arguments: [
            (429, "600", Int64(600_000)), (503, "30", 120_000), (500, "600", 120_000),
            (429, "Mon, 15 Jun 2026 13:34:56 GMT", 3_598_211),
        ])
    func retryAfter(status: Int, header: String, delay: Int64) {
        var harness = SyncHarness()
        harness.addFixes(1)
        harness.actions = harness.engine.syncCalled(now: harness.now)
        harness.answerLoad()
        harness.answerUpload(status, headers: HTTPFields(textPairs: [("retry-after", header)]))
        #expect(harness.retryAt.map { $0 - harness.now } == delay)
    }

    @Test("network regained resets the failure count and uploads at once; offline waits")
    func networkRegained() {
        var harness = SyncHarness()
        harness.addFixes(1)
        harness.actions = harness.engine.syncCalled(now: harness.now)
        harness.answerLoad()
        let batchID = harness.sentRequest!.payload.batchID
        harness.answerUpload(500)
        // A second answer for the same batch is ignored: nothing is in flight.
        #expect(harness.engine.uploadFinished(batchID: batchID, outcome: .failed(.timeout), now: harness.now).isEmpty)
        #expect(harness.engine.failures == 1)
        _ = harness.engine.networkChanged(online: false, now: harness.now)
        harness.actions = harness.engine.timerFired(.uploadRetry, now: harness.now + 120_000)
        #expect(harness.sentRequest == nil)
        harness.actions = harness.engine.networkChanged(online: true, now: harness.now + 130_000)
        #expect(harness.engine.failures == 0)
        #expect(harness.sentRequest != nil)
    }

    @Test("syncThreshold N uploads early when N fixes are pending; 0 leaves fixes to the interval")
    func threshold() {
        var harness = SyncHarness(sync: SyncConfig(url: "u", syncThreshold: 3))
        harness.addFixes(2)
        #expect(!harness.actions.contains { if case .loadBatch = $0 { true } else { false } })
        harness.addFixes(1)
        #expect(harness.actions.contains { if case .loadBatch = $0 { true } else { false } })
        var never = SyncHarness(sync: SyncConfig(url: "u", syncThreshold: 0))
        never.addFixes(500)
        #expect(!never.actions.contains { if case .loadBatch = $0 { true } else { false } })
    }

    @Test("the interval timer re-arms itself; floors: iOS 60 s, Android 15 min in the background")
    func interval() {
        let ios = SyncHarness(platform: .ios, sync: SyncConfig(url: "u", intervalSeconds: 10))
        #expect(ios.actions.contains(.armTimer(.syncInterval, at: ios.now + 60_000)))
        var android = SyncHarness(platform: .android, sync: SyncConfig(url: "u", intervalSeconds: 300))
        #expect(android.actions.contains(.armTimer(.syncInterval, at: android.now + 300_000)))
        #expect(
            android.engine.appStateChanged(background: true, now: android.now) == [
                .armTimer(.syncInterval, at: android.now + 900_000)
            ])
        let fired = android.engine.timerFired(.syncInterval, now: android.now + 900_000)
        #expect(fired.first == .armTimer(.syncInterval, at: android.now + 1_800_000))
        #expect(fired.contains(.loadBatch(limit: 100, resending: nil)))
    }

    @Test("static headers ride every upload; auth's Authorization wins over a static one")
    func headers() {
        var harness = SyncHarness(
            sync: SyncConfig(
                url: "https://ingest.test/l", headers: ["X-Api-Key": "k", "Authorization": "Static"],
                auth: AuthConfig(accessToken: "live", refreshToken: "r")))
        harness.addFixes(1)
        harness.actions = harness.engine.syncCalled(now: harness.now)
        harness.answerLoad()
        #expect(
            harness.sentRequest?.head.headerFields.lines == [
                "Content-Type: application/json", "Content-Encoding: gzip", "X-Api-Key: k",
                "Authorization: Bearer live",
            ])
        #expect(harness.sentRequest?.head.target == "https://ingest.test/l")
    }

    @Test("401 with a refresh URL: one refresh, then one retry of the same batch with the new token")
    func reactiveRefresh() {
        var harness = SyncHarness(
            sync: SyncConfig(
                url: "u", auth: AuthConfig(accessToken: "old", refreshToken: "r", refreshURL: "https://auth.test/token")
            ))
        harness.addFixes(1)
        harness.actions = harness.engine.syncCalled(now: harness.now)
        harness.answerLoad()
        let batchID = harness.sentRequest!.payload.batchID
        harness.answerUpload(401)
        #expect(harness.actions.contains { if case .sendRefresh = $0 { true } else { false } })
        #expect(harness.engine.syncCalled(now: harness.now).isEmpty)  // single flight: nothing more
        harness.actions = harness.engine.refreshFinished(
            .adopted(TokenSet(accessToken: "new", refreshToken: "r", expiresAt: nil)), now: harness.now)
        #expect(
            harness.actions.contains(
                .persistState([
                    .auth(
                        PersistedAuth(
                            tokens: TokenSet(accessToken: "new", refreshToken: "r", expiresAt: nil),
                            seed: TokenSet(accessToken: "old", refreshToken: "r", expiresAt: nil)))
                ])))
        #expect(harness.sentRequest?.payload.batchID == batchID)
        #expect(harness.sentRequest?.head.headerFields.lines.last == "Authorization: Bearer new")
        harness.answerUpload(401)  // the one retry failed too: back off, no second refresh
        #expect(!harness.actions.contains { if case .sendRefresh = $0 { true } else { false } })
        #expect(harness.retryAt != nil)
    }

    @Test("proactive refresh is armed at expiresAt − skew and dead credentials suspend sync until re-seeded")
    func proactiveAndDead() {
        let expiresAt = 1_781_530_000.0
        var harness = SyncHarness(
            sync: SyncConfig(
                url: "u",
                auth: AuthConfig(
                    accessToken: "a", refreshToken: "r", expiresAt: expiresAt, refreshURL: "https://auth.test/token")))
        #expect(harness.actions.contains(.armTimer(.proactiveRefresh, at: 1_781_530_000_000 - 60_000)))
        harness.actions = harness.engine.timerFired(.proactiveRefresh, now: 1_781_529_940_000)
        #expect(harness.actions.contains { if case .sendRefresh = $0 { true } else { false } })
        harness.actions = harness.engine.refreshFinished(.deadCredentials, now: harness.now)
        #expect(harness.actions.contains(.emitAuthChange(.deadCredentials)))
        harness.addFixes(1)
        harness.actions = harness.engine.syncCalled(now: harness.now)
        harness.answerLoad()
        harness.answerUpload(401)
        #expect(harness.statuses == [.failed(.auth)])
        harness.actions = harness.engine.configure(
            SyncConfig(
                url: "u",
                auth: AuthConfig(accessToken: "fresh", refreshToken: "r2", refreshURL: "https://auth.test/token")),
            restoringAuth: nil, now: harness.now)
        #expect(harness.actions.contains(.emitAuthChange(.seeded(expiresAt: nil))))
        #expect(harness.sentRequest?.head.headerFields.lines.last == "Authorization: Bearer fresh")
    }

    @Test("three failed refreshes open the breaker: 60, 120, 240, 480, 960 s")
    func breaker() {
        var harness = SyncHarness(
            sync: SyncConfig(
                url: "u", auth: AuthConfig(accessToken: "a", refreshToken: "r", refreshURL: "https://auth.test/token")))
        var opened: [Int64] = []
        for _ in 0..<8 {
            let started = harness.engine.timerFired(.proactiveRefresh, now: harness.now)
            #expect(started.contains { if case .sendRefresh = $0 { true } else { false } })
            let actions = harness.engine.refreshFinished(.transient, now: harness.now)
            for case .emitAuthChange(.breakerOpened(let until)) in actions {
                opened.append((until - harness.now) / 1000)
                #expect(harness.engine.timerFired(.proactiveRefresh, now: harness.now).isEmpty)
                harness.now = until
                _ = harness.engine.timerFired(.refreshBreaker, now: harness.now)
            }
        }
        #expect(opened == [60, 120, 240, 480, 960, 960])
    }

    @Test("extras are read at send time")
    func extrasAtSendTime() {
        var harness = SyncHarness()
        harness.addFixes(1)
        harness.engine.extras = ["trip": "a"]
        harness.actions = harness.engine.syncCalled(now: harness.now)
        harness.engine.extras = ["trip": "b"]
        harness.answerLoad()
        #expect(harness.sentRequest?.payload.extras == ["trip": "b"])
    }
}

@Suite("SyncEngine: the pending count follows the store")
struct PendingCountTests {
    @Test(
        "fixes retention deletes leave the pending count, so syncThreshold weighs what is stored (spec §6, seed 04)")
    func retentionLowersThePendingCount() {
        var harness = SyncHarness(
            sync: SyncConfig(url: "https://ingest.test/locations", intervalSeconds: 3600, syncThreshold: 5))
        harness.addFixes(4)
        #expect(harness.engine.pendingFixes == 4)
        // The store was at its cap: the fourth insert pushed the two oldest out.
        harness.engine.fixesExpired(count: 2)
        #expect(harness.engine.pendingFixes == 2)
        harness.actions = []
        // Two more stored: 4 pending, under the threshold of 5, so no early upload.
        harness.addFixes(2)
        #expect(harness.engine.pendingFixes == 4)
        #expect(!harness.actions.contains { if case .loadBatch = $0 { true } else { false } })
        harness.addFixes(1)
        #expect(harness.actions.contains { if case .loadBatch = $0 { true } else { false } })
        // Never below zero, whatever the store says.
        harness.engine.fixesExpired(count: 99)
        #expect(harness.engine.pendingFixes == 0)
    }
}
