/// One emulated phone running the Beekon SDK: lifecycle, gate, stationary detection,
/// geofences, sync and auth, as one value-type state machine.
///
/// `handle(_:at:)` takes an event and the clock's time and returns the actions to carry out,
/// in order. No I/O, no clock reads, no randomness beyond the generator it was seeded with, so
/// the same events at the same times give the same actions.
public struct Device: Sendable {
    /// How long a stationary device waits between `check_in` rows.
    public static let checkInMillis: Int64 = 900_000
    /// The default `getCurrentLocation` timeout.
    public static let currentLocationTimeoutMillis: Int64 = 15_000

    /// The emulated platform.
    public let platform: Platform
    /// Its OS release; nil for a current one.
    public let osVersion: OSVersion?
    /// The install id (made once, persisted).
    public let installID: UUIDv7
    /// The configuration in force.
    public private(set) var config: BeekonConfig
    /// The lifecycle (state and OS preconditions).
    public private(set) var lifecycle: Lifecycle
    /// The gate.
    public private(set) var gate: Gate
    /// The stationary detector.
    public private(set) var stationary: StationaryDetector
    /// The watched geofences.
    public private(set) var geofences = GeofenceMonitor()
    /// Sync and auth.
    public private(set) var sync: SyncEngine
    /// The current session (UUIDv7 text); nil when not started.
    public private(set) var sessionID: String?
    /// Whether the app wants tracking; survives process death.
    public private(set) var trackingIntent = false
    /// Whether the app's process is alive.
    public private(set) var isProcessAlive = true
    /// What the OS provider is asked for now; nil when it is off.
    public private(set) var providerRequest: AccuracyRequest?

    private var rng: SplitMix64
    private var ids = UUIDv7Generator()
    /// Batch ids come from a stream of their own, so that when uploads finish (which depends on
    /// the network) never changes which ids the fixes get: same seed, same fixes.
    private var batchRNG: SplitMix64
    private var batchIDs = UUIDv7Generator()
    /// The accuracy taken at `start()`: a configure while running applies at the next start.
    private var runningAccuracy: AccuracyRequest
    /// The last stored fix, copied by check-ins.
    private var lastStored: Location?
    /// The next admitted fix follows stationary → moving.
    private var motionTriggerDue = false
    /// `getCurrentLocation` calls waiting for the next fix, by request id.
    private var currentLocationRequests: [Int: AccuracyRequest] = [:]

    /// A device restored from its store (a new install when `restored` is empty). The returned
    /// actions persist what a new install makes and resume tracking if the app intended it.
    public static func restore(
        platform: Platform, osVersion: OSVersion? = nil, model: String = "", sdkVersion: String = "0.1.1",
        restored: PersistedDeviceState, pendingFixes: Int, seed: UInt64, now: Int64
    ) -> (device: Device, actions: [DeviceAction]) {
        var rng = SplitMix64(seed: seed)
        var ids = UUIDv7Generator()
        var actions: [DeviceAction] = []
        let installID: UUIDv7
        if let saved = restored.installID {
            installID = saved
        } else {
            installID = ids.next(atUnixMillis: now, using: &rng)
            actions.append(.persistState([.installID(installID)]))
        }
        var device = Device(
            platform: platform, osVersion: osVersion,
            identity: DeviceIdentity(
                installID: installID.text, platform: platform, sdkVersion: sdkVersion, model: model),
            installID: installID, config: restored.config ?? BeekonConfig(), rng: rng, ids: ids)
        actions += device.launch(restored: restored, pendingFixes: pendingFixes, now: now)
        return (device, actions)
    }

    private init(
        platform: Platform, osVersion: OSVersion?, identity: DeviceIdentity, installID: UUIDv7,
        config: BeekonConfig, rng: SplitMix64, ids: UUIDv7Generator
    ) {
        self.platform = platform
        self.osVersion = osVersion
        self.installID = installID
        self.config = config
        self.rng = rng
        self.ids = ids
        batchRNG = rng.derived(0xBA7C_4ED5)
        lifecycle = Lifecycle(platform: platform, osVersion: osVersion)
        gate = config.gate
        stationary = StationaryDetector(radiusMeters: config.stationaryRadiusMeters)
        sync = SyncEngine(platform: platform, identity: identity)
        runningAccuracy = config.preset.accuracyRequest
    }

    /// The app was updated to SDK `sdkVersion` while its process was down: its uploads report
    /// the new version from the relaunch on (the store, and a batch held for a retry, stay).
    public mutating func appUpdated(sdkVersion: String) {
        sync.identity.sdkVersion = sdkVersion
    }

    /// The tracking state the app would observe.
    public var state: TrackingState { lifecycle.state }

    /// `pendingUploadCount()`: stored fixes not yet acknowledged, as the device counts them.
    public var pendingUploadCount: Int { sync.pendingFixes }

    /// `listGeofences()`.
    public var watchedGeofences: [Geofence] { geofences.geofences }

    /// Feeds one event at the clock's `now` (Unix ms) and returns the actions, in order.
    public mutating func handle(_ event: DeviceEvent, at now: Int64) -> [DeviceAction] {
        if case .processRelaunched(_, let restored, let pending) = event {
            guard !isProcessAlive else { return [] }
            isProcessAlive = true
            return launch(restored: restored, pendingFixes: pending, now: now)
        }
        guard isProcessAlive else { return [] }
        switch event {
        case .osFix(let fix):
            return fixArrived(fix, now: now)
        case .permissionChanged(let granted):
            return Self.states(lifecycle.permissionChanged(granted: granted)) + providerUpdate()
                + failCurrentLocationRequests()
        case .locationServicesChanged(let on):
            return Self.states(lifecycle.locationServicesChanged(on: on)) + providerUpdate()
                + failCurrentLocationRequests()
        case .osError(let recovery):
            return Self.states(lifecycle.osErrorChanged(active: true))
                + [.armTimer(.osErrorRecovery, at: now + max(0, recovery))] + providerUpdate()
        case .appStateChanged(let background):
            return sync.appStateChanged(background: background, now: now)
        case .processDied:
            return processDied()
        case .processRelaunched:
            return []
        case .networkChanged(let online):
            return sync.networkChanged(online: online, now: now)
        case .dwellStarted(let latitude, let longitude):
            guard lifecycle.isStarted, config.whenStationary != .keepTracking,
                stationary.stopped(latitude: latitude, longitude: longitude, timestamp: now) != nil,
                config.whenStationary == .pauseWithCheckIns
            else { return [] }
            return [.armTimer(.checkIn, at: now + Self.checkInMillis)]
        case .dwellEnded:
            stationary.walkedOn()
            return []
        case .timerFired(let timer):
            return timerFired(timer, now: now)
        case .batchLoaded(let batch):
            return sync.batchLoaded(batch, now: now, ids: &batchIDs, using: &batchRNG)
        case .uploadFinished(let batchID, let outcome):
            return sync.uploadFinished(batchID: batchID, outcome: outcome, now: now)
        case .refreshFinished(let outcome):
            return sync.refreshFinished(refreshOutcome(outcome, now: now), now: now)
        case .locationsDeleted(let count):
            sync.locationsDeleted(count: count)
            return []
        case .fixesExpired(let count):
            sync.fixesExpired(count: count)
            return []
        case .configure(let newConfig):
            return configure(newConfig, restoringAuth: nil, now: now)
        case .start:
            return start(now: now)
        case .stop:
            return stop(now: now)
        case .shutdown:
            return shutdown()
        case .sync:
            return sync.syncCalled(now: now)
        case .setExtras(let extras):
            sync.extras = extras
            return [.persistState([.extras(extras)])]
        case .addGeofences(let added):
            do throws(GeofenceValidationError) {
                try geofences.add(added)
            } catch {
                return [.refuseCall("addGeofences", reason: error.description)]
            }
            return [.persistState([.geofences(geofences.geofences)])] + providerUpdate()
        case .removeGeofences(let removed):
            geofences.remove(ids: removed)
            return [.persistState([.geofences(geofences.geofences)])] + providerUpdate()
        case .getCurrentLocation(let requestID, let timeout, let accuracy):
            if let reason = lifecycle.failingPrecondition, reason != .unknown {
                return [.answerCurrentLocation(requestID: requestID, .unavailable(reason))]
            }
            currentLocationRequests[requestID] = accuracy
            return [.armTimer(.currentLocationTimeout(requestID: requestID), at: now + max(0, timeout))]
                + providerUpdate()
        case .deleteLocations(let before):
            return [.deleteLocations(before: before)]
        }
    }

    // MARK: Lifecycle

    private mutating func start(now: Int64) -> [DeviceAction] {
        guard !lifecycle.isStarted else { return [] }
        let session = ids.next(atUnixMillis: now, using: &rng).text
        sessionID = session
        trackingIntent = true
        beginRun()
        return [.persistState([.trackingIntent(true), .sessionID(session)])]
            + Self.states(lifecycle.start()) + providerUpdate()
    }

    private mutating func stop(now: Int64) -> [DeviceAction] {
        guard lifecycle.isStarted else { return [] }
        sessionID = nil
        trackingIntent = false
        return [.persistState([.trackingIntent(false), .sessionID(nil)])]
            + Self.states(lifecycle.stop()) + providerUpdate() + [.cancelTimer(.checkIn)]
            + sync.sessionStopped(now: now)
    }

    /// The state holder is dropped: a holder made anew starts Idle, which the state stream,
    /// replaying its latest value, then says (seed 01).
    private mutating func shutdown() -> [DeviceAction] {
        let cancelled = cancelAllTimers()
        let wasIdle = lifecycle.state == .idle
        lifecycle.forget()
        currentLocationRequests = [:]
        return cancelled + (wasIdle ? [] : [.emitState(.idle)]) + providerUpdate()
    }

    private mutating func processDied() -> [DeviceAction] {
        let cancelled = cancelAllTimers()
        isProcessAlive = false
        currentLocationRequests = [:]
        sync.processDied()
        lifecycle.forget()
        let stopProvider: [DeviceAction] = providerRequest == nil ? [] : [.requestLocationUpdates(nil)]
        providerRequest = nil
        return cancelled + stopProvider
    }

    /// A process start: config, extras, geofences and auth from the store, then tracking again
    /// with the same session if the app intended it.
    private mutating func launch(
        restored: PersistedDeviceState, pendingFixes: Int, now: Int64
    ) -> [DeviceAction] {
        sync.extras = restored.extras
        sync.sentBatchRestored(restored.sentBatch)
        sync.pendingFixesCounted(pendingFixes)
        geofences = GeofenceMonitor()
        // Persisted geofences were valid when added.
        try? geofences.add(restored.geofences)
        var actions = configure(
            restored.config ?? config, restoringAuth: restored.auth, now: now, persist: false)
        trackingIntent = restored.trackingIntent
        sessionID = nil
        if restored.trackingIntent, let session = restored.sessionID {
            sessionID = session
            beginRun()
            actions += Self.states(lifecycle.relaunch())
        }
        return actions + providerUpdate()
    }

    private mutating func configure(
        _ newConfig: BeekonConfig, restoringAuth: PersistedAuth?, now: Int64, persist: Bool = true
    ) -> [DeviceAction] {
        config = newConfig
        let lastAdmitted = gate.lastAdmitted
        gate = newConfig.gate
        if let lastAdmitted { gate.noteAdmitted(lastAdmitted) }
        stationary.radiusMeters = newConfig.stationaryRadiusMeters
        let actions = sync.configure(newConfig.sync, restoringAuth: restoringAuth, now: now)
        return (persist ? [.persistState([.config(newConfig)])] : []) + actions
    }

    /// A fresh tracking run: the gate and the stationary detector start over.
    private mutating func beginRun() {
        gate.reset()
        stationary.reset()
        motionTriggerDue = false
        lastStored = nil
        runningAccuracy = config.preset.accuracyRequest
    }

    // MARK: Fixes

    private mutating func fixArrived(_ osFix: OSFix, now: Int64) -> [DeviceAction] {
        guard lifecycle.permissionGranted, lifecycle.locationServicesOn,
            osFix.latitude.isFinite, osFix.longitude.isFinite
        else { return [] }
        var actions: [DeviceAction] = answerCurrentLocationRequests(with: osFix, now: now)
        let crossings = geofences.positionChanged(
            latitude: osFix.latitude, longitude: osFix.longitude, timestamp: osFix.timestamp)
        let running = lifecycle.isRunning
        if running {
            actions += Self.states(lifecycle.firstFixArrived())
        }
        for crossing in crossings {
            let event = GeofenceEvent(
                id: ids.next(atUnixMillis: now, using: &rng), geofenceID: crossing.geofence.id,
                type: crossing.type, timestamp: crossing.timestamp)
            actions += [
                .persistGeofenceEvent(event, sessionID: lifecycle.isStarted ? sessionID ?? "" : ""),
                .emitGeofenceEvent(event),
            ]
        }
        if running {
            actions += trackingFix(osFix, geofenceCrossed: !crossings.isEmpty, now: now)
        }
        if !crossings.isEmpty {
            actions += sync.geofenceEventRecorded(now: now)
        }
        return actions
    }

    /// The tracking pipeline for one fix: stationary region, gate, labels, store, stream, sync.
    private mutating func trackingFix(
        _ osFix: OSFix, geofenceCrossed: Bool, now: Int64
    ) -> [DeviceAction] {
        var actions: [DeviceAction] = []
        let pauses = config.whenStationary != .keepTracking
        if pauses {
            switch stationary.observe(
                latitude: osFix.latitude, longitude: osFix.longitude, accuracy: osFix.accuracy,
                timestamp: osFix.timestamp)
            {
            case .becameStationary?:
                if config.whenStationary == .pauseWithCheckIns {
                    actions.append(.armTimer(.checkIn, at: now + Self.checkInMillis))
                }
            case .becameMoving?:
                motionTriggerDue = true
                actions.append(.cancelTimer(.checkIn))
            case nil:
                break
            }
            // Still stationary after this fix: it is inside the region, or one fix beyond it
            // that a second must confirm (spec §5: fixes inside the region are not admitted).
            if !geofenceCrossed, stationary.motion == .stationary {
                return actions
            }
        }
        guard
            var fix = Location(
                id: ids.next(atUnixMillis: now, using: &rng), latitude: osFix.latitude,
                longitude: osFix.longitude, timestamp: osFix.timestamp, accuracy: osFix.accuracy,
                speed: osFix.speed, bearing: osFix.bearing, altitude: osFix.altitude,
                activity: config.detectActivity ? osFix.activity : nil, isMock: osFix.isMock)
        else { return actions }
        if geofenceCrossed {
            // A crossing while tracking stores its fix whatever the gate says.
            fix.quality = Gate.quality(of: fix, after: gate.lastAdmitted)
            fix.trigger = .geofence
            gate.noteAdmitted(fix)
        } else {
            guard case .admitted(let admitted) = gate.admit(fix) else { return actions }
            fix = admitted
            fix.trigger = motionTriggerDue ? .motion : .interval
        }
        if fix.trigger == .motion || fix.trigger == .interval { motionTriggerDue = false }
        fix.motion = pauses ? stationary.motion : .unknown
        return actions + store(fix, now: now)
    }

    /// Persist first (seed 04's non-crossing invariant), then stream, then tell sync.
    private mutating func store(_ fix: Location, now: Int64) -> [DeviceAction] {
        lastStored = fix
        return [.persistFix(fix, sessionID: sessionID ?? ""), .emitLocation(fix)]
            + sync.fixPersisted(now: now)
    }

    private mutating func checkIn(now: Int64) -> [DeviceAction] {
        guard lifecycle.state == .tracking, config.whenStationary == .pauseWithCheckIns,
            stationary.motion == .stationary, var copy = lastStored
        else { return [] }
        copy.id = ids.next(atUnixMillis: now, using: &rng)
        copy.timestamp = now
        copy.trigger = .checkIn
        copy.motion = .stationary
        return store(copy, now: now) + [.armTimer(.checkIn, at: now + Self.checkInMillis)]
    }

    // MARK: getCurrentLocation

    private mutating func answerCurrentLocationRequests(with osFix: OSFix, now: Int64) -> [DeviceAction] {
        guard !currentLocationRequests.isEmpty else { return [] }
        var actions: [DeviceAction] = []
        for requestID in currentLocationRequests.keys.sorted() {
            guard
                let fix = Location(
                    id: ids.next(atUnixMillis: now, using: &rng), latitude: osFix.latitude,
                    longitude: osFix.longitude, timestamp: osFix.timestamp,
                    accuracy: osFix.accuracy, speed: osFix.speed, bearing: osFix.bearing,
                    altitude: osFix.altitude, trigger: .manual,
                    activity: config.detectActivity ? osFix.activity : nil, isMock: osFix.isMock)
            else { continue }
            actions += [
                .cancelTimer(.currentLocationTimeout(requestID: requestID)),
                .answerCurrentLocation(requestID: requestID, .fix(fix)),
            ]
        }
        currentLocationRequests = [:]
        return actions + providerUpdate()
    }

    private mutating func failCurrentLocationRequests() -> [DeviceAction] {
        guard let reason = lifecycle.failingPrecondition, reason != .unknown else { return [] }
        var actions: [DeviceAction] = []
        for requestID in currentLocationRequests.keys.sorted() {
            actions += [
                .cancelTimer(.currentLocationTimeout(requestID: requestID)),
                .answerCurrentLocation(requestID: requestID, .unavailable(reason)),
            ]
        }
        currentLocationRequests = [:]
        return actions + providerUpdate()
    }

    // MARK: Timers

    private mutating func timerFired(_ timer: DeviceTimer, now: Int64) -> [DeviceAction] {
        switch timer {
        case .osErrorRecovery:
            return Self.states(lifecycle.osErrorChanged(active: false)) + providerUpdate()
        case .checkIn:
            return checkIn(now: now)
        case .currentLocationTimeout(let requestID):
            guard currentLocationRequests.removeValue(forKey: requestID) != nil else { return [] }
            return [.answerCurrentLocation(requestID: requestID, .timedOut)] + providerUpdate()
        case .syncInterval, .uploadRetry, .proactiveRefresh, .refreshBreaker:
            return sync.timerFired(timer, now: now)
        }
    }

    private func cancelAllTimers() -> [DeviceAction] {
        var timers: [DeviceTimer] = [
            .syncInterval, .uploadRetry, .proactiveRefresh, .refreshBreaker, .osErrorRecovery, .checkIn,
        ]
        timers += currentLocationRequests.keys.sorted().map { .currentLocationTimeout(requestID: $0) }
        return timers.map { .cancelTimer($0) }
    }

    // MARK: Helpers

    // Static: as a method, `states(lifecycle.…())` copied the whole device (its argument mutates
    // `self` while the call holds it), once per fix while tracking.
    private static func states(_ passed: [TrackingState]) -> [DeviceAction] {
        passed.map { .emitState($0) }
    }

    /// Asks the OS provider for what is needed now: the run's accuracy while tracking, the
    /// requested one for a pending one-shot fix, coarse updates for geofences, or nothing.
    private mutating func providerUpdate() -> [DeviceAction] {
        var wanted: AccuracyRequest?
        if isProcessAlive, lifecycle.permissionGranted, lifecycle.locationServicesOn {
            if lifecycle.isRunning {
                wanted = runningAccuracy
            } else if let oneShot = currentLocationRequests.values.min(by: { $0.cadenceRank < $1.cadenceRank }) {
                wanted = oneShot
            } else if !geofences.geofences.isEmpty {
                wanted = .low
            }
        }
        guard wanted != providerRequest else { return [] }
        providerRequest = wanted
        return [.requestLocationUpdates(wanted)]
    }

    private func refreshOutcome(_ outcome: HTTPOutcome, now: Int64) -> RefreshOutcome {
        guard case .response(let response, let body) = outcome else {
            return outcome == .failed(.offline) ? .offline : .transient
        }
        let previous = sync.auth.persisted?.tokens ?? TokenSet(accessToken: nil, refreshToken: nil, expiresAt: nil)
        return RefreshOutcome(
            status: response.status.code, body: body, mapping: sync.auth.recipe?.responseMapping,
            previous: previous, now: now)
    }
}

extension AccuracyRequest {
    /// Finer requests first: high 0, balanced 1, low 2.
    var cadenceRank: Int {
        switch self {
        case .high: 0
        case .balanced: 1
        case .low: 2
        }
    }
}
