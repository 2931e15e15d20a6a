import HTTPMessage
import HTTPTypes
import Testing

@testable import BeekonDevice

/// The sync and auth behaviour a backend sees, request by request, on a manual clock: batch
/// sizes, batch ids, headers and send times, through 413s, token refreshes, the breaker and
/// process death (issue #16 items 3, 4, 5 and 8).
@Suite("Sync fidelity: what the server sees")
struct SyncFidelityTests {
    static let url = "https://ingest.test/locations"
    static let refreshURL = "https://auth.test/token"

    static func config(batchSize: Int = 100, auth: AuthConfig? = nil) -> BeekonConfig {
        BeekonConfig(
            minTimeBetweenLocationsSeconds: 0, minDistanceBetweenLocationsMeters: 0, whenStationary: .keepTracking,
            sync: SyncConfig(url: url, intervalSeconds: 300, batchSize: batchSize, auth: auth))
    }

    /// A tracking iOS device that stored `count` fixes, one a second, and has uploaded nothing.
    static func tracking(_ count: Int, config: BeekonConfig) -> DeviceHarness {
        var harness = DeviceHarness(platform: .ios, config: config)
        harness.send(.start)
        for index in 0..<count {
            harness.now += 1000
            harness.fix(48 + Double(index) / 1000, 11)
        }
        #expect(harness.stored.count == count && harness.uploads.isEmpty)
        return harness
    }

    static func authorization(_ request: UploadRequest) -> String? {
        request.head.headerFields[.authorization]
    }

    static func sizes(_ uploads: some Collection<UploadRequest>) -> [Int] {
        uploads.map(\.payload.locations.count)
    }

    static let token = #"{"access_token": "fresh", "expires_in": 3600}"#

    // MARK: Item 3: a 413 and a lowered batchSize

    @Test(
        """
        after a 413, configure() with a lower batchSize re-chunks the held batch and sends at once under new \
        batch ids; the same or a larger size keeps the batch and its id for the retry (seed 05: no auto-shrink)
        """,
        arguments: [
            // (the batchSize given after the 413; sizes sent at configure(); sizes sent at the retry time)
            (2, [2, 2, 2, 2, 2, 2], [] as [Int]),
            (4, [4, 4, 4], []),
            (5, [], [5, 5, 2]),
            (50, [], [5, 7]),
        ])
    func lowerBatchSizeAfter413(lowered: Int, atConfigure: [Int], atRetry: [Int]) {
        var harness = Self.tracking(12, config: Self.config(batchSize: 5))
        let ids = harness.stored.map(\.fix.id)
        harness.serverStatus = 413
        harness.send(.sync)
        let refused = harness.uploads[0].payload
        #expect(refused.locations.map(\.id) == Array(ids.prefix(5)))
        harness.serverStatus = 200
        harness.send(.configure(Self.config(batchSize: lowered)))
        #expect(Self.sizes(harness.uploads.dropFirst()) == atConfigure)
        let afterConfigure = harness.uploads.count
        harness.advance(to: harness.now + 3_600_000)
        let retried = harness.uploads[afterConfigure...]
        #expect(Self.sizes(retried.prefix(atRetry.count)) == atRetry)
        if atConfigure.isEmpty {
            #expect(retried.first?.payload.batchID == refused.batchID, "the retry of the same rows keeps its id")
        } else {
            #expect(!harness.uploads.dropFirst().contains { $0.payload.batchID == refused.batchID })
        }
        // Every fix reached the server in order, once after the 413.
        #expect(harness.uploads.dropFirst().flatMap { $0.payload.locations.map(\.id) } == ids)
        #expect(harness.stored.isEmpty)
    }

    @Test("a batchSize lowered while the batch is out re-chunks it at its retry, not before")
    func lowerBatchSizeWhileSending() {
        var harness = Self.tracking(6, config: Self.config(batchSize: 6))
        harness.deferUploads = true
        harness.send(.sync)
        harness.send(.configure(Self.config(batchSize: 3)))
        harness.serverStatus = 413
        harness.answerUpload()
        #expect(harness.uploads.count == 1)
        harness.serverStatus = 200
        harness.deferUploads = false
        // 300 s × 2^1 after the first failure.
        harness.advance(to: harness.now + 599_999)
        #expect(harness.uploads.count == 1)
        harness.advance(to: harness.now + 1)
        #expect(Self.sizes(harness.uploads) == [6, 3, 3])
    }

    // MARK: Item 4: a token adopted while an upload waits

    @Test(
        """
        a batch backing off after a 401 and a failed refresh goes at once, same batch_id, when the proactive \
        refresh adopts a token, not at its retry time
        """)
    func proactiveRefreshSendsTheWaitingBatch() {
        let start: Int64 = 1_781_526_896_789
        let auth = AuthConfig(
            accessToken: "old", refreshToken: "r", expiresAt: Double(start + 200_000) / 1000,
            refreshURL: Self.refreshURL)
        var harness = Self.tracking(3, config: Self.config(auth: auth))
        harness.serverStatus = 401
        harness.send(.sync)
        #expect(harness.uploads.map(Self.authorization) == ["Bearer old"])
        harness.answerRefresh(status: 503)  // the reactive refresh fails: back off 600 s
        #expect(harness.timers[.uploadRetry] == harness.now + 600_000)
        harness.serverStatus = 200
        // The proactive refresh falls due at expiresAt − 60 s.
        harness.advance(to: start + 140_000)
        #expect(harness.refreshes.count == 2)
        harness.answerRefresh(status: 200, body: Self.token)
        #expect(harness.uploads.map(Self.authorization) == ["Bearer old", "Bearer fresh"])
        #expect(harness.uploads[1].payload.batchID == harness.uploads[0].payload.batchID)
        #expect(harness.uploads[1].payload.sentAt == harness.uploads[0].payload.sentAt, "sent_at: when assembled")
        #expect(harness.timers[.uploadRetry] == nil && harness.stored.isEmpty)
    }

    @Test(
        """
        with no access token and the breaker open, nothing goes out without Authorization: sync() waits, and the \
        breaker's probe, once it gets a token, sends the batch at once
        """)
    func breakerProbeSendsTheWaitingBatch() {
        let auth = AuthConfig(refreshToken: "r", refreshURL: Self.refreshURL)
        var harness = Self.tracking(3, config: Self.config(auth: auth))
        harness.send(.sync)
        #expect(harness.uploads.isEmpty && harness.refreshes.count == 1, "the token is fetched first")
        // Three failed refreshes, each at the waiting batch's retry time: the third opens the breaker.
        var breakerUntil: Int64?
        for failure in 1...3 {
            harness.answerRefresh(status: 503)
            if failure == 3 {
                breakerUntil = harness.timers[.refreshBreaker]
                break
            }
            harness.advance(to: harness.timers[.uploadRetry]!)
        }
        let until = try! #require(breakerUntil)
        #expect(until == harness.now + 60_000)
        harness.send(.sync)
        harness.advance(to: until - 1)
        harness.send(.sync)
        #expect(harness.uploads.isEmpty, "no upload without Authorization while the breaker is open")
        #expect(harness.refreshes.count == 3)
        harness.advance(to: until)
        #expect(harness.refreshes.count == 4, "the breaker's probe")
        harness.answerRefresh(status: 200, body: Self.token)
        #expect(harness.uploads.map(Self.authorization) == ["Bearer fresh"])
        #expect(harness.uploads[0].payload.sentAt < until, "sent_at: when the batch was assembled, at the first sync()")
        #expect(harness.stored.isEmpty)
    }

    @Test("dead credentials with no token suspend the batch (failed(auth)) rather than send it unauthenticated")
    func deadWithoutToken() {
        let auth = AuthConfig(refreshToken: "r", refreshURL: Self.refreshURL)
        var harness = Self.tracking(2, config: Self.config(auth: auth))
        harness.send(.sync)
        harness.answerRefresh(status: 400)
        #expect(harness.uploads.isEmpty)
        #expect(harness.log.last == .emitSyncStatus(.failed(.auth)))
        harness.send(.configure(Self.config(auth: AuthConfig(accessToken: "new", refreshToken: "r2"))))
        #expect(harness.uploads.map(Self.authorization) == ["Bearer new"])
    }

    // MARK: Issue #34: a token the device knows to be bad is never sent

    @Test(
        """
        an expired seed token is never sent: with the token endpoint failing, the batch waits through the \
        retries and the open breaker, sync() included, and the probe's token sends it
        """)
    func expiredTokenNeverSent() {
        let start: Int64 = 1_781_526_896_789
        let auth = AuthConfig(
            accessToken: "old", refreshToken: "r", expiresAt: Double(start - 1000) / 1000, refreshURL: Self.refreshURL)
        var harness = Self.tracking(3, config: Self.config(auth: auth))
        harness.send(.sync)
        #expect(harness.refreshes.count == 1, "the expired token is refreshed first")
        for _ in 1...2 {
            harness.answerRefresh(status: 503)
            harness.advance(to: harness.timers[.uploadRetry]!)
        }
        harness.answerRefresh(status: 503)
        let until = try! #require(harness.timers[.refreshBreaker])
        harness.send(.sync)
        harness.advance(to: until - 1)
        harness.send(.sync)
        #expect(harness.uploads.isEmpty, "an expired token went out: \(harness.uploads.map(Self.authorization))")
        harness.advance(to: until)
        harness.answerRefresh(status: 200, body: Self.token)
        #expect(harness.uploads.map(Self.authorization) == ["Bearer fresh"])
        #expect(harness.stored.isEmpty)
    }

    @Test(
        """
        after a 401 and a failed reactive refresh, the backed-off retries never send the refused token again: \
        each retry time refreshes first, and the breaker's probe's token sends the batch under its id
        """)
    func refusedTokenNeverResent() {
        let auth = AuthConfig(accessToken: "old", refreshToken: "r", refreshURL: Self.refreshURL)
        var harness = Self.tracking(3, config: Self.config(auth: auth))
        harness.serverStatus = 401
        harness.send(.sync)
        #expect(harness.uploads.map(Self.authorization) == ["Bearer old"])
        #expect(harness.state.auth?.health.tokenRejected == true, "kept with the tokens, so a relaunch knows")
        harness.answerRefresh(status: 503)  // the reactive refresh
        for refreshes in 2...3 {
            harness.advance(to: harness.timers[.uploadRetry]!)
            #expect(harness.refreshes.count == refreshes && harness.uploads.count == 1)
            harness.answerRefresh(status: 503)
        }
        let until = try! #require(harness.timers[.refreshBreaker])
        harness.killAndRelaunch(.userLaunch)
        harness.send(.sync)
        #expect(harness.uploads.count == 1, "a relaunch sent the refused token")
        harness.serverStatus = 200
        harness.advance(to: until)
        harness.answerRefresh(status: 200, body: Self.token)
        #expect(harness.uploads.map(Self.authorization) == ["Bearer old", "Bearer fresh"])
        #expect(harness.uploads[1].payload.batchID == harness.uploads[0].payload.batchID)
        #expect(harness.uploads[1].payload.sentAt == harness.uploads[0].payload.sentAt)
        #expect(harness.stored.isEmpty)
    }

    @Test(
        """
        a 401 to a token replaced while the upload was out refuses the old token, not the new one: the one \
        retry goes at once with the new token, with no refresh
        """)
    func refusalOfAReplacedToken() {
        let auth = AuthConfig(accessToken: "old", refreshToken: "r", refreshURL: Self.refreshURL)
        var harness = Self.tracking(2, config: Self.config(auth: auth))
        harness.deferUploads = true
        harness.send(.sync)
        harness.send(.timerFired(.proactiveRefresh))
        harness.answerRefresh(status: 200, body: Self.token)
        harness.serverStatus = 401
        harness.answerUpload()
        #expect(harness.uploads.map(Self.authorization) == ["Bearer old", "Bearer fresh"])
        #expect(harness.refreshes.count == 1)
        #expect(harness.state.auth?.health.tokenRejected == false)
    }

    @Test(
        """
        a seed-only token refused 401 stays off the wire, a relaunch and the interval included; sync() is the \
        app's word to try it again (spec §6), and a new seed is sent at once
        """)
    func refusedSeedOnlyToken() {
        var harness = Self.tracking(2, config: Self.config(auth: AuthConfig(accessToken: "a")))
        harness.serverStatus = 401
        harness.send(.sync)
        #expect(harness.log.last == .emitSyncStatus(.failed(.auth)))
        harness.killAndRelaunch(.userLaunch)
        harness.advance(to: harness.now + 3_600_000)
        #expect(harness.uploads.count == 1, "the refused seed went out again by itself")
        harness.send(.sync)
        #expect(harness.uploads.map(Self.authorization) == ["Bearer a", "Bearer a"])
        harness.serverStatus = 200
        harness.send(.configure(Self.config(auth: AuthConfig(accessToken: "b"))))
        #expect(harness.uploads.map(Self.authorization) == ["Bearer a", "Bearer a", "Bearer b"])
        #expect(harness.stored.isEmpty)
    }

    // MARK: Item 5: auth health survives process death

    @Test(
        """
        dead credentials stay dead across process death: no refresh until a new seed, and the token the server \
        refused is not sent again, whatever sync() says
        """)
    func deadCredentialsSurviveDeath() {
        let auth = AuthConfig(accessToken: "a", refreshToken: "r", refreshURL: Self.refreshURL)
        var harness = Self.tracking(2, config: Self.config(auth: auth))
        harness.serverStatus = 401
        harness.send(.sync)
        harness.answerRefresh(status: 400)
        #expect(harness.state.auth?.health.deadCredentials == true)
        #expect(harness.state.auth?.health.tokenRejected == true)
        harness.killAndRelaunch(.userLaunch)
        let relaunched = harness.log.count
        harness.send(.sync)
        harness.advance(to: harness.now + 7_200_000)
        #expect(harness.refreshes.count == 1, "a relaunch does not revive dead credentials")
        #expect(harness.uploads.map(Self.authorization) == ["Bearer a"])
        #expect(harness.log[relaunched...].contains(.emitSyncStatus(.failed(.auth))))
        #expect(harness.stored.count == 2, "the rows are kept throughout")
        harness.serverStatus = 200
        harness.send(.configure(Self.config(auth: AuthConfig(accessToken: "b", refreshToken: "r2"))))
        #expect(harness.uploads.map(Self.authorization) == ["Bearer a", "Bearer b"])
        #expect(harness.stored.isEmpty)
    }

    @Test("the breaker and its count survive process death: still open after a relaunch, the next failure 120 s")
    func breakerSurvivesDeath() {
        let auth = AuthConfig(accessToken: "a", refreshToken: "r", refreshURL: Self.refreshURL)
        var harness = Self.tracking(1, config: Self.config(auth: auth))
        for _ in 0..<3 {
            harness.send(.timerFired(.proactiveRefresh))
            harness.answerRefresh(status: 503)
        }
        let until = try! #require(harness.state.auth?.health.breakerOpenUntil)
        #expect(harness.state.auth?.health.failedRefreshes == 3)
        harness.now += 10_000
        harness.killAndRelaunch(.userLaunch)
        #expect(harness.timers[.refreshBreaker] == until)
        harness.serverStatus = 401
        harness.send(.sync)
        #expect(harness.refreshes.count == 3, "no refresh while the breaker is open")
        // Its 401 marked the token rejected: the breaker's probe is the refresh, which fails: 120 s.
        harness.advance(to: until)
        #expect(harness.refreshes.count == 4)
        #expect(harness.uploads.count == 1, "the refused token is not sent again")
        harness.answerRefresh(status: 503)
        #expect(harness.timers[.refreshBreaker] == harness.now + 120_000)
        // The next probe comes before the batch's retry time; the batch still waits for a token.
        harness.advance(to: harness.timers[.uploadRetry]!)
        #expect(harness.refreshes.count == 5 && harness.uploads.count == 1)
    }

    // MARK: Item 8: the batch id across process death

    @Test(
        """
        a batch in flight at process death goes again after the relaunch under the same batch_id with the same rows; \
        the next batch, with new rows, gets a new id
        """)
    func sameBatchIDAfterDeath() {
        var harness = Self.tracking(3, config: Self.config())
        harness.deferUploads = true
        harness.send(.sync)
        let first = harness.uploads[0].payload
        let persisted = harness.log.firstIndex {
            if case .persistState(let changes) = $0, case .sentBatch? = changes.first { true } else { false }
        }
        let sent = harness.log.firstIndex { if case .sendBatch = $0 { true } else { false } }
        #expect(persisted != nil && persisted! < sent!, "the id is stored before the batch first leaves")
        harness.killAndRelaunch(.userLaunch)
        harness.deferUploads = false
        harness.send(.sync)
        #expect(harness.uploads.count == 2)
        #expect(harness.uploads[1].payload.batchID == first.batchID)
        #expect(harness.uploads[1].payload.locations == first.locations)
        #expect(harness.stored.isEmpty)
        // New rows (the harness reuses the deleted rows' numbers): a new id.
        harness.now += 1000
        harness.fix(48.5, 11)
        harness.send(.sync)
        #expect(harness.uploads.count == 3)
        #expect(harness.uploads[2].payload.batchID != first.batchID)
    }
}
