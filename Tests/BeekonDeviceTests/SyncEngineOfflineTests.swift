import HTTPMessage
import HTTPTypes
import Testing

@testable import BeekonDevice

/// A device without a network (spec §6): it sends nothing, a transfer the network's loss cut off
/// is no failure, and everything waiting goes the instant the network returns.
@Suite("Sync engine offline")
struct SyncEngineOfflineTests {
    static let tokenURL = "https://auth.test/token"
    /// The harnesses' clocks start at 1_781_526_896_789; this token is refreshed proactively at
    /// `expiresAt − 60 s` = 1_781_526_940_000.
    static let expiringAuth = AuthConfig(
        accessToken: "a", refreshToken: "r", expiresAt: 1_781_527_000, refreshURL: tokenURL)
    static let refreshAt: Int64 = 1_781_526_940_000
    static let rotated = TokenSet(accessToken: "b", refreshToken: "r", expiresAt: 1_781_600_000_000)

    static func refreshes(_ actions: [DeviceAction]) -> Int {
        actions.filter { if case .sendRefresh = $0 { true } else { false } }.count
    }

    static func uploads(_ actions: [DeviceAction]) -> [UploadRequest] {
        actions.compactMap { if case .sendBatch(let request) = $0 { request } else { nil } }
    }

    @Test(
        """
        a proactive refresh that falls due offline waits for the network and \
        goes the instant it returns; cut off again, it counts no failure
        """
    )
    func proactiveRefreshWaitsForNetwork() {
        var harness = DeviceHarness(
            platform: .ios,
            config: BeekonConfig(sync: SyncConfig(url: "https://ingest.test/l", auth: Self.expiringAuth)))
        #expect(harness.timers[.proactiveRefresh] == Self.refreshAt)
        harness.send(.networkChanged(online: false))
        harness.advance(to: Self.refreshAt + 30_000)
        #expect(harness.timers[.proactiveRefresh] == nil, "the proactive refresh time was not passed")
        #expect(Self.refreshes(harness.log) == 0, "a token refresh was sent while offline")
        harness.log = []
        harness.send(.networkChanged(online: true))
        #expect(Self.refreshes(harness.log) == 1)
        // The network goes again while the refresh is out: the device hears `offline`.
        harness.send(.networkChanged(online: false))
        harness.send(.refreshFinished(.failed(.offline)))
        #expect(harness.device.sync.auth.consecutiveFailures == 0)
        #expect(!harness.device.sync.auth.isRefreshing)
        harness.log = []
        harness.advance(to: harness.now + 600_000)
        harness.send(.networkChanged(online: true))
        #expect(Self.refreshes(harness.log) == 1)
    }

    /// Everything that can start a transfer.
    enum Trigger: String, CaseIterable, Sendable {
        case sync, geofenceEvent, sessionStopped, threshold, interval, retryTimer, proactiveRefresh, breakerClosed,
            reconfigured
    }

    @Test(
        """
        offline, no trigger sends an upload or a token refresh; back \
        online, the due refresh goes at once, then the waiting batch
        """,
        arguments: Trigger.allCases)
    func nothingSentOffline(trigger: Trigger) {
        let config = SyncConfig(url: "u", syncThreshold: 1, auth: Self.expiringAuth)
        var harness = SyncHarness(sync: config)
        // One batch failed before the network went: it waits for its retry.
        harness.addFixes(1)
        harness.answerLoad()
        let batchID = harness.sentRequest!.payload.batchID
        harness.answerUpload(503)
        _ = harness.engine.networkChanged(online: false, now: harness.now)
        harness.now = Self.refreshAt + 1000
        harness.actions = []
        switch trigger {
        case .sync: harness.actions = harness.engine.syncCalled(now: harness.now)
        case .geofenceEvent: harness.actions = harness.engine.geofenceEventRecorded(now: harness.now)
        case .sessionStopped: harness.actions = harness.engine.sessionStopped(now: harness.now)
        case .threshold: harness.addFixes(1)
        case .interval: harness.actions = harness.engine.timerFired(.syncInterval, now: harness.now)
        case .retryTimer: harness.actions = harness.engine.timerFired(.uploadRetry, now: harness.now)
        case .proactiveRefresh: harness.actions = harness.engine.timerFired(.proactiveRefresh, now: harness.now)
        case .breakerClosed: harness.actions = harness.engine.timerFired(.refreshBreaker, now: harness.now)
        case .reconfigured:
            let fresh = AuthConfig(
                accessToken: "fresh", refreshToken: "r2", expiresAt: 1_781_527_000, refreshURL: Self.tokenURL)
            harness.actions = harness.engine.configure(
                SyncConfig(url: "u", syncThreshold: 1, auth: fresh), restoringAuth: nil, now: harness.now)
        }
        harness.answerLoad()
        #expect(Self.uploads(harness.actions).isEmpty && Self.refreshes(harness.actions) == 0, "\(harness.actions)")
        harness.actions = harness.engine.networkChanged(online: true, now: harness.now)
        #expect(Self.refreshes(harness.actions) == 1)
        #expect(Self.uploads(harness.actions).isEmpty, "the batch went before the due refresh")
        harness.actions = harness.engine.refreshFinished(.adopted(Self.rotated), now: harness.now)
        #expect(Self.uploads(harness.actions).map(\.payload.batchID) == [batchID])
        #expect(harness.sentRequest?.head.headerFields.lines.last == "Authorization: Bearer b")
    }

    @Test(
        """
        an upload cut off by the network's loss keeps its rows and is no failure; any other \
        network error is; either way the batch goes again the instant the network returns
        """,
        arguments: [
            // (what the device hears, whether it knew it was offline, failures counted)
            (NetworkErrorKind.offline, true, 0),
            (.timeout, true, 1),
            (.reset, true, 1),
            // The transport said offline but the world did not: a network error, never a wait
            // for a network the engine thinks it has.
            (.offline, false, 1),
        ])
    func uploadCutOff(heard: NetworkErrorKind, knewOffline: Bool, failures: Int) {
        var harness = SyncHarness()
        harness.addFixes(3)
        harness.actions = harness.engine.syncCalled(now: harness.now)
        harness.answerLoad()
        let request = harness.sentRequest!
        if knewOffline { _ = harness.engine.networkChanged(online: false, now: harness.now) }
        harness.actions = harness.engine.uploadFinished(
            batchID: request.payload.batchID, outcome: .failed(heard), now: harness.now)
        #expect(
            !harness.actions.contains {
                if case .acknowledgeBatch = $0 { true } else if case .dropBatch = $0 { true } else { false }
            })
        #expect(harness.engine.failures == failures)
        #expect(harness.engine.pendingFixes == 3)
        if failures == 0 {
            guard case .awaitingNetwork(let held?) = harness.engine.phase else {
                Issue.record("not waiting for the network: \(harness.engine.phase)")
                return
            }
            #expect(held.batchID == request.payload.batchID)
            #expect(harness.retryAt == nil)
            #expect(harness.statuses == [.idle])
        } else {
            #expect(harness.retryAt != nil)
        }
        if !knewOffline { _ = harness.engine.networkChanged(online: false, now: harness.now) }
        harness.now += 5_000
        harness.actions = harness.engine.networkChanged(online: true, now: harness.now)
        #expect(harness.engine.failures == 0)
        #expect(Self.uploads(harness.actions).map(\.payload.batchID) == [request.payload.batchID])
        #expect(harness.sentRequest?.payload.locations.map(\.id) == harness.pending.map(\.id))
        #expect(harness.sentRequest?.payload.sentAt == request.payload.sentAt, "the same batch, assembled once")
    }

    @Test(
        """
        a token refresh cut off by the network's loss three times opens no breaker; \
        each time it goes again on the network's return, and the batch after it
        """
    )
    func refreshCutOff() {
        var harness = SyncHarness(sync: SyncConfig(url: "u", auth: Self.expiringAuth))
        harness.addFixes(1)
        harness.now = Self.refreshAt
        harness.actions = harness.engine.syncCalled(now: harness.now)
        harness.answerLoad()
        #expect(Self.refreshes(harness.actions) == 1)
        for _ in 0..<3 {
            _ = harness.engine.networkChanged(online: false, now: harness.now)
            harness.actions = harness.engine.refreshFinished(.offline, now: harness.now)
            #expect(harness.actions.isEmpty, "\(harness.actions)")
            #expect(harness.engine.auth.consecutiveFailures == 0)
            #expect(harness.engine.failures == 0)
            harness.now += 60_000
            harness.actions = harness.engine.networkChanged(online: true, now: harness.now)
            #expect(Self.refreshes(harness.actions) == 1)
            #expect(Self.uploads(harness.actions).isEmpty)
        }
        #expect(harness.engine.auth.breakerOpenUntil == nil)
        harness.actions = harness.engine.refreshFinished(.adopted(Self.rotated), now: harness.now)
        #expect(Self.uploads(harness.actions).count == 1)
    }

    @Test(
        "a refresh heard `offline` by an engine that thinks it is online is a failed refresh, and the batch backs off")
    func refreshOfflineWhileOnline() {
        var harness = SyncHarness(sync: SyncConfig(url: "u", auth: Self.expiringAuth))
        harness.addFixes(1)
        harness.now = Self.refreshAt
        harness.actions = harness.engine.syncCalled(now: harness.now)
        harness.answerLoad()
        harness.actions = harness.engine.refreshFinished(.offline, now: harness.now)
        #expect(harness.engine.auth.consecutiveFailures == 1)
        #expect(harness.retryAt != nil)
    }
}
