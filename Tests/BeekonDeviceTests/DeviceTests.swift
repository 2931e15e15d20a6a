import HTTPMessage
import HTTPTypes
import Testing

@testable import BeekonDevice

/// Runs a `Device` on a manual clock with an in-memory store and a scripted server, carrying out
/// its actions the way the runtime will.
struct DeviceHarness {
    var device: Device
    var now: Int64 = 1_781_526_896_789
    /// What the store holds: fixes with their session, geofence events.
    var stored: [(fix: Location, session: String)] = []
    var storedEvents: [GeofenceEvent] = []
    var state = PersistedDeviceState()
    var log: [DeviceAction] = []
    var timers: [DeviceTimer: Int64] = [:]
    var inFlight: UploadRequest?
    var uploads: [UploadRequest] = []
    /// The status the scripted server answers.
    var serverStatus = 200
    /// Whether uploads stay in flight until `answerUpload()` (otherwise answered at once).
    var deferUploads = false
    /// Whether the device has a network: nothing may be sent without one.
    var online = true
    /// Token refreshes sent, in order; one is out until `answerRefresh`.
    var refreshes: [RefreshRequest] = []
    var refreshInFlight = false

    init(platform: Platform, config: BeekonConfig = BeekonConfig(), seed: UInt64 = 1) {
        let (device, actions) = Device.restore(
            platform: platform, restored: PersistedDeviceState(), pendingFixes: 0, seed: seed, now: now)
        self.device = device
        apply(actions)
        send(.configure(config))
    }

    mutating func send(_ event: DeviceEvent) {
        if case .networkChanged(let online) = event { self.online = online }
        if case .refreshFinished = event { refreshInFlight = false }
        apply(device.handle(event, at: now))
        // As the fleet does: an upload out when the network goes down ends for the device as `offline`.
        if case .networkChanged(online: false) = event, let request = inFlight {
            inFlight = nil
            apply(device.handle(.uploadFinished(batchID: request.payload.batchID, .failed(.offline)), at: now))
        }
    }

    mutating func fix(_ latitude: Double, _ longitude: Double, accuracy: Double? = 5) {
        send(.osFix(OSFix(latitude: latitude, longitude: longitude, timestamp: now, accuracy: accuracy)))
    }

    /// Moves the clock, firing due timers in order.
    mutating func advance(to instant: Int64) {
        while let (timer, at) = timers.filter({ $0.value <= instant }).min(by: { $0.value < $1.value }) {
            now = max(now, at)
            timers[timer] = nil
            send(.timerFired(timer))
        }
        now = instant
    }

    mutating func apply(_ actions: [DeviceAction]) {
        var queue = actions
        while !queue.isEmpty {
            let action = queue.removeFirst()
            log.append(action)
            switch action {
            case .persistFix(let fix, let session): stored.append((fix, session))
            case .persistGeofenceEvent(let event, _): storedEvents.append(event)
            case .persistState(let changes):
                for change in changes {
                    switch change {
                    case .installID(let id): state.installID = id
                    case .trackingIntent(let intent): state.trackingIntent = intent
                    case .sessionID(let session): state.sessionID = session
                    case .config(let config): state.config = config
                    case .extras(let extras): state.extras = extras
                    case .geofences(let geofences): state.geofences = geofences
                    case .auth(let auth): state.auth = auth
                    case .sentBatch(let sent): state.sentBatch = sent
                    case .sdkVersion(let version): state.sdkVersion = version
                    }
                }
            case .armTimer(let timer, let at): timers[timer] = at
            case .cancelTimer(let timer): timers[timer] = nil
            case .loadBatch(_, let sent?) where stored.contains(where: { sent.fixes.map(\.id).contains($0.fix.id) }):
                // What is left of a batch sent before, in its order (this store matches rows by id).
                let rows = sent.fixes.compactMap { row in stored.firstIndex { $0.fix.id == row.id } }
                let batch = PendingBatch(
                    sessionID: sent.sessionID, locations: rows.map { stored[$0].fix }, fixRows: rows.map { Int64($0) },
                    geofenceEvents: [], eventRows: [])
                queue += device.handle(.batchLoaded(batch), at: now)
            case .loadBatch(let limit, _):
                let session = stored.first?.session ?? storedEvents.first.map { _ in "" }
                let rows = stored.enumerated().filter { $0.element.session == session }.prefix(limit)
                let batch =
                    session == nil
                    ? nil
                    : PendingBatch(
                        sessionID: session!, locations: rows.map(\.element.fix), fixRows: rows.map { Int64($0.offset) },
                        geofenceEvents: storedEvents, eventRows: storedEvents.indices.map { Int64($0) })
                queue += device.handle(.batchLoaded(batch), at: now)
            case .sendBatch(let request):
                #expect(inFlight == nil, "a second upload started while one was in flight")
                #expect(online, "an upload was sent while offline")
                inFlight = request
                uploads.append(request)
                if !deferUploads {
                    queue += answerInFlightUpload()
                }
            case .sendRefresh(let request):
                #expect(online, "a token refresh was sent while offline")
                #expect(!refreshInFlight, "a second refresh started while one was out")
                refreshes.append(request)
                refreshInFlight = true
            case .acknowledgeBatch(let batch, _), .dropBatch(let batch, _):
                let ids = Set(batch.locations.map(\.id))
                stored.removeAll { ids.contains($0.fix.id) }
                let eventIDs = Set(batch.geofenceEvents.map(\.id))
                storedEvents.removeAll { eventIDs.contains($0.id) }
            default: break
            }
        }
    }

    /// The server's answer to the upload in flight, as the device sees it.
    mutating func answerInFlightUpload() -> [DeviceAction] {
        guard let request = inFlight else { return [] }
        inFlight = nil
        return device.handle(
            .uploadFinished(batchID: request.payload.batchID, .response(status: serverStatus, body: [])),
            at: now)
    }

    /// Answers the upload in flight, if any, and carries out what follows.
    mutating func answerUpload() {
        apply(answerInFlightUpload())
    }

    var emittedStates: [TrackingState] {
        log.compactMap { if case .emitState(let state) = $0 { state } else { nil } }
    }

    /// The token endpoint's answer to the refresh that is out.
    mutating func answerRefresh(status: Int, body: String = "") {
        #expect(refreshInFlight, "no refresh was out")
        send(.refreshFinished(.response(status: status, body: Array(body.utf8))))
    }

    /// Kills the process and relaunches it with what the store holds.
    mutating func killAndRelaunch(_ cause: RelaunchCause) {
        send(.processDied)
        inFlight = nil  // the transfer dies with the process
        refreshInFlight = false
        send(.processRelaunched(cause, restored: state, pendingFixes: stored.count))
    }
}

@Suite("Device")
struct DeviceTests {
    static let metersPerDegree = Geodesy.earthRadiusMeters * .pi / 180
    static let keepAll = BeekonConfig(
        minTimeBetweenLocationsSeconds: 0, minDistanceBetweenLocationsMeters: 0, whenStationary: .keepTracking)

    @Test("a new install persists its install id once and starts Idle")
    func newInstall() {
        let harness = DeviceHarness(platform: .android)
        #expect(harness.state.installID == harness.device.installID)
        #expect(harness.device.state == .idle)
    }

    @Test("Android: start, first fix → Tracking; the fix is stored with the session before it is streamed")
    func androidFirstFix() {
        var harness = DeviceHarness(platform: .android, config: Self.keepAll)
        harness.send(.start)
        #expect(harness.emittedStates == [.starting])
        harness.fix(52.52, 13.40)
        #expect(harness.emittedStates == [.starting, .tracking])
        #expect(harness.stored.count == 1)
        #expect(harness.stored[0].session == harness.state.sessionID)
        let persistIndex = harness.log.firstIndex { if case .persistFix = $0 { true } else { false } }!
        let emitIndex = harness.log.firstIndex { if case .emitLocation = $0 { true } else { false } }!
        #expect(persistIndex < emitIndex)
    }

    @Test("no fix is stored while Idle, Paused or Stopped")
    func nothingOutsideTracking() {
        var harness = DeviceHarness(platform: .ios, config: Self.keepAll)
        harness.fix(1, 1)
        harness.send(.start)
        harness.send(.osError(recoveryMillis: 5000))
        harness.fix(1, 1.001)
        harness.advance(to: harness.now + 5000)
        #expect(harness.device.state == .tracking)
        harness.fix(1, 1.002)
        harness.send(.stop)
        harness.fix(1, 1.003)
        #expect(harness.stored.map(\.fix.longitude) == [1.002])
        #expect(harness.emittedStates == [.starting, .tracking, .paused(.unknown), .tracking, .stopped])
    }

    @Test(
        "a run that starts moving labels its fixes interval, never motion: only leaving a stay is a motion trigger",
        arguments: [Platform.ios, .android])
    func movingFromTheStart(platform: Platform) {
        var harness = DeviceHarness(
            platform: platform,
            config: BeekonConfig(minTimeBetweenLocationsSeconds: 0, minDistanceBetweenLocationsMeters: 0))
        harness.send(.start)
        for step in 0..<5 {
            harness.now += 60_000
            harness.fix(40 + Double(step) * 300 / Self.metersPerDegree, -3.7)
        }
        #expect(harness.stored.count == 5)
        #expect(harness.stored.map(\.fix.trigger) == Array(repeating: .interval, count: 5))
        // Unknown until a second fix in a row beyond the radius confirms the move.
        #expect(harness.stored.map(\.fix.motion) == [.unknown, .unknown, .moving, .moving, .moving])
    }

    @Test("pause mode drops fixes inside the stationary region; leaving yields a motion fix")
    func stationaryPause() {
        var harness = DeviceHarness(
            platform: .ios,
            config: BeekonConfig(minTimeBetweenLocationsSeconds: 0, minDistanceBetweenLocationsMeters: 0))
        harness.send(.start)
        for second in stride(from: 0, through: 300, by: 60) {
            harness.now += 60_000
            harness.fix(40 + Double(second % 2) * 10 / Self.metersPerDegree, -3.7)
        }
        let storedWhileStill = harness.stored.count
        // Three fixes while motion is unknown; from three minutes after the first, inside the region: dropped.
        #expect(storedWhileStill == 3)
        harness.now += 60_000
        harness.fix(40 + 500 / Self.metersPerDegree, -3.7)
        #expect(harness.stored.count == storedWhileStill, "one fix beyond the region may be noise: still stationary")
        harness.now += 60_000
        harness.fix(40 + 560 / Self.metersPerDegree, -3.7)
        #expect(harness.stored.count == storedWhileStill + 1)
        #expect(harness.stored.last?.fix.trigger == .motion)
        #expect(harness.stored.last?.fix.motion == .moving)
        harness.now += 60_000
        harness.fix(40 + 900 / Self.metersPerDegree, -3.7)
        #expect(harness.stored.last?.fix.trigger == .interval)
    }

    @Test("pauseWithCheckIns writes a check_in copy of the last fix every 15 minutes while stationary")
    func checkIns() {
        var harness = DeviceHarness(
            platform: .ios,
            config: BeekonConfig(
                minTimeBetweenLocationsSeconds: 0, minDistanceBetweenLocationsMeters: 0,
                whenStationary: .pauseWithCheckIns))
        harness.send(.start)
        for _ in 0..<5 {
            harness.now += 60_000
            harness.fix(40, -3.7)
        }
        let before = harness.stored.count
        let last = harness.stored.last!.fix
        harness.advance(to: harness.now + 31 * 60_000)
        let checkIns = harness.stored.dropFirst(before).map(\.fix)
        #expect(checkIns.count == 2)
        for checkIn in checkIns {
            #expect(checkIn.trigger == .checkIn)
            #expect(checkIn.motion == .stationary)
            #expect(checkIn.latitude == last.latitude && checkIn.longitude == last.longitude)
            #expect(checkIn.id != last.id)
        }
        #expect(checkIns[1].timestamp - checkIns[0].timestamp == 900_000)
    }

    @Test(
        "process death while tracking, then relaunch: same session, tracking resumes, nothing stored twice",
        arguments: [
            (Platform.ios, RelaunchCause.significantLocationChange), (.android, .workManager), (.android, .boot),
        ])
    func relaunch(platform: Platform, cause: RelaunchCause) {
        var harness = DeviceHarness(platform: platform, config: Self.keepAll)
        harness.send(.start)
        harness.fix(10, 10)
        let session = harness.state.sessionID
        let before = harness.stored.count
        harness.killAndRelaunch(cause)
        #expect(harness.device.sessionID == session)
        harness.now += 1000
        harness.fix(10, 10.01)
        #expect(harness.device.state == .tracking)
        #expect(harness.stored.count == before + 1)
        #expect(harness.stored.last?.session == session)
        #expect(Set(harness.stored.map(\.fix.id)).count == harness.stored.count)
    }

    @Test("a dead process records nothing and answers nothing")
    func deadProcess() {
        var harness = DeviceHarness(platform: .android, config: Self.keepAll)
        harness.send(.start)
        harness.send(.processDied)
        harness.fix(1, 1)
        harness.send(.sync)
        #expect(harness.stored.isEmpty)
        #expect(harness.device.handle(.start, at: harness.now).isEmpty)
    }

    @Test("a geofence crossing while tracking stores the event and a geofence fix, and uploads at once")
    func geofenceWhileTracking() {
        var harness = DeviceHarness(
            platform: .ios, config: BeekonConfig(sync: SyncConfig(url: "https://ingest.test/l")))
        harness.send(.addGeofences([Geofence(id: "depot", latitude: 48, longitude: 11, radiusMeters: 100)]))
        harness.send(.start)
        harness.fix(48 + 1000 / Self.metersPerDegree, 11)
        harness.now += 5000
        let crossedAt = harness.now
        harness.fix(48 + 20 / Self.metersPerDegree, 11)
        #expect(harness.uploads.isEmpty, "a crossing counts after 20 s on the new side")
        harness.now += 20_000
        harness.fix(48 + 25 / Self.metersPerDegree, 11)  // 25 s after the first: the gate alone would reject it
        #expect(harness.uploads.count == 1)
        let upload = harness.uploads[0].payload
        #expect(upload.geofenceEvents.map(\.type) == [.enter])
        #expect(upload.geofenceEvents.map(\.timestamp) == [crossedAt])
        #expect(upload.locations.last?.trigger == .geofence)
        #expect(harness.stored.isEmpty && harness.storedEvents.isEmpty)
    }

    @Test("geofences keep working while not tracking; the event carries no session")
    func geofenceWhileIdle() {
        var harness = DeviceHarness(platform: .android)
        harness.send(.addGeofences([Geofence(id: "home", latitude: 48, longitude: 11, radiusMeters: 100)]))
        #expect(harness.device.providerRequest == .low)
        harness.fix(48, 11)
        harness.fix(48.01, 11)
        harness.now += 30_000
        harness.fix(48.01, 11)
        #expect(harness.storedEvents.map(\.type) == [.exit])
        #expect(
            harness.log.contains { if case .persistGeofenceEvent(_, let session) = $0 { session == "" } else { false } }
        )
        #expect(harness.stored.isEmpty)
    }

    @Test(
        """
        getCurrentLocation: the next fix, tagged manual, never stored \
        or streamed; nil on timeout; an error without permission
        """
    )
    func currentLocation() {
        var harness = DeviceHarness(platform: .ios)
        harness.send(.getCurrentLocation(requestID: 1, timeoutMillis: 15_000, accuracy: .high))
        #expect(harness.device.providerRequest == .high)
        harness.fix(3, 4)
        #expect(
            harness.log.contains {
                if case .answerCurrentLocation(1, .fix(let fix)) = $0 { fix.trigger == .manual } else { false }
            })
        #expect(harness.stored.isEmpty)
        #expect(!harness.log.contains { if case .emitLocation = $0 { true } else { false } })
        harness.send(.getCurrentLocation(requestID: 2, timeoutMillis: 15_000, accuracy: .balanced))
        harness.advance(to: harness.now + 15_000)
        #expect(harness.log.contains(.answerCurrentLocation(requestID: 2, .timedOut)))
        harness.send(.permissionChanged(granted: false))
        harness.send(.getCurrentLocation(requestID: 3, timeoutMillis: 15_000, accuracy: .high))
        #expect(harness.log.contains(.answerCurrentLocation(requestID: 3, .unavailable(.permissionRevoked))))
    }

    @Test("stop() with fixes pending uploads the trip tail at once")
    func stopFlushes() {
        var harness = DeviceHarness(
            platform: .ios,
            config: BeekonConfig(
                minTimeBetweenLocationsSeconds: 0, minDistanceBetweenLocationsMeters: 0, whenStationary: .keepTracking,
                sync: SyncConfig(url: "u")))
        harness.send(.start)
        for index in 0..<3 {
            harness.now += 1000
            harness.fix(1, 1 + Double(index) * 0.01)
        }
        #expect(harness.uploads.isEmpty)
        harness.send(.stop)
        #expect(harness.uploads.count == 1)
        #expect(harness.uploads[0].payload.locations.count == 3)
    }

    @Test("the same seed and events give the same actions")
    func reproducible() {
        func run() -> [DeviceAction] {
            var harness = DeviceHarness(platform: .android, config: Self.keepAll, seed: 42)
            harness.send(.start)
            for index in 0..<20 {
                harness.now += 1000
                harness.fix(1, 1 + Double(index) * 0.001)
            }
            return harness.log
        }
        #expect(run() == run())
    }

    @Test("random event sequences keep the invariants", arguments: Array(0..<40) as [UInt64])
    func invariants(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        let localOnly = seed % 3 == 0
        var config = BeekonConfig(
            preset: Preset.allCases[Int(seed % 3)], whenStationary: StationaryMode.allCases[Int(seed / 3 % 3)],
            sync: localOnly
                ? nil
                : SyncConfig(
                    url: "https://ingest.test/l", intervalSeconds: 60, batchSize: 7, syncThreshold: Int(seed % 4)))
        config.detectActivity = seed % 2 == 0
        var harness = DeviceHarness(platform: seed % 2 == 0 ? .ios : .android, config: config, seed: seed)
        harness.deferUploads = true
        var latitude = 45.0
        for _ in 0..<400 {
            harness.advance(to: harness.now + Int64.random(in: 500...20_000, using: &rng))
            let storedBefore = harness.stored.count
            let stateBefore = harness.device.state
            switch Int.random(in: 0..<100, using: &rng) {
            case 0..<60:
                latitude += Double.random(in: -0.0005...0.002, using: &rng)
                harness.fix(latitude, 7, accuracy: Double.random(in: 3...150, using: &rng))
                if harness.stored.count > storedBefore {
                    let allowed =
                        stateBefore == .tracking || (stateBefore == .starting && harness.device.state == .tracking)
                    #expect(allowed, "stored a fix while \(stateBefore)")
                }
            case 60..<64: harness.send(.start)
            case 64..<67: harness.send(.stop)
            case 67..<71: harness.send(.permissionChanged(granted: Bool.random(using: &rng)))
            case 71..<74: harness.send(.locationServicesChanged(on: Bool.random(using: &rng)))
            case 74..<76: harness.send(.osError(recoveryMillis: 3000))
            case 76..<80: harness.send(.networkChanged(online: Bool.random(using: &rng)))
            case 80..<84: harness.send(.sync)
            case 84..<86:
                harness.serverStatus = [200, 200, 200, 500, 503, 429, 400, 401, 404].randomElement(using: &rng)!
            case 86..<88: harness.answerUpload()
            case 88..<90: harness.killAndRelaunch(.workManager)
            case 90..<93: harness.send(.appStateChanged(background: Bool.random(using: &rng)))
            default:
                harness.send(.addGeofences([Geofence(id: "g", latitude: latitude, longitude: 7, radiusMeters: 50)]))
            }
        }
        if !localOnly {
            #expect(!harness.uploads.isEmpty, "the sequence exercised no upload at all")
        }
        if localOnly {
            #expect(harness.uploads.isEmpty)
            #expect(!harness.log.contains { if case .loadBatch = $0 { true } else { false } })
        }
        // Every deleted row was in a batch that the server answered with 2xx or 400/422.
        let deletedIDs = harness.log.flatMap { action -> [UUIDv7] in
            if case .acknowledgeBatch(let batch, _) = action { return batch.locations.map(\.id) }
            if case .dropBatch(let batch, _) = action { return batch.locations.map(\.id) }
            return []
        }
        let uploadedIDs = Set(harness.uploads.flatMap { $0.payload.locations.map(\.id) })
        #expect(deletedIDs.allSatisfy { uploadedIDs.contains($0) })
    }
}

@Suite("Secrets")
struct SecretsTests {
    @Test("tokens never appear in the description of any action, through seeding, refresh and uploads")
    func tokensNeverLogged() {
        var harness = DeviceHarness(
            platform: .ios,
            config: BeekonConfig(
                minTimeBetweenLocationsSeconds: 0, minDistanceBetweenLocationsMeters: 0, whenStationary: .keepTracking,
                sync: SyncConfig(
                    url: "https://ingest.test/l", headers: ["X-Api-Key": "sekrit-static"], syncThreshold: 1,
                    auth: AuthConfig(
                        accessToken: "sekrit-seed-access", refreshToken: "sekrit-seed-refresh",
                        expiresAt: 1_781_527_000,
                        refreshURL: "https://auth.test/token",
                        refreshPayload: ["grant_type": "refresh_token", "refresh_token": "{refreshToken}"]))))
        harness.send(.start)
        harness.fix(1, 1)
        harness.advance(to: harness.now + 200_000)
        let body = Array(
            #"{"access_token":"sekrit-rotated","refresh_token":"sekrit-rotated-refresh","expires_in":3600}"#.utf8)
        harness.send(.refreshFinished(.response(status: 200, body: body)))
        harness.serverStatus = 401
        harness.fix(1, 1.1)
        let text = harness.log.map { String(describing: $0) }.joined(separator: "\n")
        #expect(!text.contains("sekrit"))
        #expect(text.contains("sendRefresh"))
        #expect(harness.state.auth?.tokens.accessToken == "sekrit-rotated")
    }
}

@Suite("Device, stops reported by the world")
struct DwellTests {
    @Test("a dwell makes the device stationary at once: fixes around it are dropped and check-ins begin")
    func dwell() {
        var harness = DeviceHarness(
            platform: .ios,
            config: BeekonConfig(
                minTimeBetweenLocationsSeconds: 0, minDistanceBetweenLocationsMeters: 0,
                whenStationary: .pauseWithCheckIns))
        harness.send(.start)
        harness.fix(40, -3.7)
        harness.send(.dwellStarted(latitude: 40, longitude: -3.7))
        #expect(harness.device.stationary.motion == .stationary)
        harness.now += 30_000
        harness.fix(40.0001, -3.7)
        #expect(harness.stored.count == 1)
        harness.advance(to: harness.now + 900_000)
        #expect(harness.stored.last?.fix.trigger == .checkIn)
        #expect(harness.device.pendingUploadCount == 2)
    }
}
