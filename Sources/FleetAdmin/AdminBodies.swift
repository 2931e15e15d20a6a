import BeekonDevice
import BeekonStore
import FleetDescription
import FleetEngine
import FleetReport

// The admin API's response bodies and live events, as `Codable` types: `APIJSON` writes them,
// and their schemas in docs/openapi.yaml are generated from them (`AdminSchemas`).

extension Platform: APIEnum {}
extension RelaunchCause: APIEnum {}
extension RunPhase: APIEnum, Encodable {}
extension SyncView.Phase: APIEnum, Encodable {}
extension AuthView.State: APIEnum, Encodable {}
extension FleetAction.Name: APIDescribed {
    /// Listed once, as `ActionName` (`ActionSchemas`).
    package static var apiSchema: APISchema { APISchema(.reference("ActionName")) }
}
extension Preset: APIEnum {}
extension StationaryMode: APIEnum {}
extension AuthStrategy: APIEnum {}
extension AuthBodyFormat: APIEnum {}
extension ActionParameter.JSONType: APIEnum {}
extension PauseReason: APIEnum {}
extension Quality: APIEnum {}

/// `GET /healthz`.
struct HealthBody: APIBody {
    var status: RunPhase

    static let example = HealthBody(status: .running)
    static let component: String? = "Health"
}

/// Every error answer: `{"error": {"code", "message", "field"?}}`.
struct ErrorBody: APIBody {
    struct Detail: APIBody {
        var code: APIError.Code
        var message: String
        var field: Omittable<String>

        static let example = Detail(code: .badRequest, message: "", field: .absent)
        static let notes = [
            "field": APINote(
                "The field at fault: `warp`, `selector.group`, `spec.colour`, `params.ms`, `count`, `sort`, …")
        ]
    }

    var error: Detail

    static let example = ErrorBody(error: .example)
    static let component: String? = "Error"
}

/// `GET /api/v1/fleet`, the `fleet` live event and `PATCH /api/v1/fleet`'s answer.
struct FleetSummaryBody: APIBody {
    struct Batches: APIBody {
        var sent: Int
        var byOutcome: APIMap<Int>

        static let example = Batches(sent: 0, byOutcome: APIMap([]))
    }

    struct ActiveFault: APIBody {
        var fault: Int
        var source: ActionSource
        var action: String

        static let example = ActiveFault(fault: 0, source: .timeline, action: "")
        static let notes = [
            "fault": APINote(
                "Its number: its place in the fleet file's `faults:` (from 0), or, for one the API began, after "
                    + "them (`DELETE /api/v1/faults/{fault}` ends either)."),
            "source": APINote("Where it came from: the fleet file's `timeline`, or the `api` (REST or the page)."),
        ]
    }

    /// How the fleet's `getCurrentLocation` calls were answered this run.
    struct CurrentLocationAnswers: APIBody {
        var fix: Int
        var timedOut: Int
        var unavailable: Int

        static let example = CurrentLocationAnswers(fix: 0, timedOut: 0, unavailable: 0)
        static let summary: String? =
            "Answers to `getCurrentLocation` this run: `fix` (the next OS fix), `timedOut` (none within the "
            + "timeout), `unavailable` (permission revoked or location services off)."
    }

    struct Store: APIBody {
        var errors: APIMap<Int>
        var fixesLost: APIMap<Int>
        var geofenceEventsLost: APIMap<Int>

        static let example = Store(errors: APIMap([]), fixesLost: APIMap([]), geofenceEventsLost: APIMap([]))
        static let summary: String? =
            "Device store failures by cause: " + DeviceStoreError.causes.map { "`\($0)`" }.joined(separator: ", ") + "."
    }

    /// Whether the run keeps up with its warp (`FleetPace`).
    struct Pace: APIBody {
        var warp: Double?
        var achievedWarp: Double?
        var timerLatenessP99Ms: Double
        var timerLatenessMaxMs: Double
        var behind: Bool
        var behindSeconds: Double

        init(_ pace: FleetPace) {
            warp = pace.warp
            achievedWarp = pace.achievedWarp.map(Rounding.warp)
            timerLatenessP99Ms = Rounding.millis(pace.timerLatenessP99Millis)
            timerLatenessMaxMs = Rounding.millis(pace.timerLatenessMaxMillis)
            behind = pace.behind
            behindSeconds = Rounding.seconds(pace.behindSeconds)
        }

        static let example = Pace(FleetPace())
        static let summary: String? =
            "Whether the run keeps up with its warp, over its last \(PaceMeter.windowSeconds) real seconds (since the "
            + "last warp change, pause or resume when more recent), measured once a real second."
        static let notes = [
            "warp": APINote("The warp set; null at max warp, which sets none.", minimum: FleetClock.warpRange.lower),
            "achievedWarp": APINote(
                "Virtual ms advanced ÷ real ms elapsed over the window: at max warp, how fast it goes; null until "
                    + "half a real second is measured, and while paused.", minimum: 0),
            "timerLatenessP99Ms": APINote(
                "How late timers fired over the window, real ms, 99th percentile (0 when none fired; none are "
                    + "late at max warp, which follows no wall).", minimum: 0),
            "timerLatenessMaxMs": APINote("The latest timer over the window, real ms.", minimum: 0),
            "behind": APINote(
                "The run cannot keep up with the warp set: the achieved warp is below "
                    + "\(Int(PaceMeter.behindFraction * 100)) % of it, or timers' p99 lateness passes "
                    + "\(Int(PaceMeter.latenessBoundMillis)) ms. Never at max warp or while paused."),
            "behindSeconds": APINote("Real seconds the run has been behind so far.", minimum: 0),
        ]
    }

    var name: String
    var virtualTime: APITime
    var virtualTimeMillis: Int64
    var endsAt: APITime?
    var endsAtMillis: Int64?
    var warp: Double
    var paused: Bool
    var maxWarp: Bool
    var deterministic: Bool
    var timing: TimingBody
    var realSeconds: Double
    var devices: Int
    var targetDevices: Int?
    var activeFaults: [ActiveFault]
    var byState: APIMap<Int>
    var byPlatform: APIMap<Int>
    var byGroup: APIMap<Int>
    var groups: [String]
    var fixes: FixesBody
    var batches: Batches
    var store: Store
    var currentLocation: CurrentLocationAnswers
    var pace: Pace

    init(_ snapshot: FleetSnapshot) {
        let metrics = snapshot.metrics
        var byPlatform: [String: Int] = [:]
        var byGroup: [String: Int] = [:]
        for device in snapshot.devices where !device.deleted {
            byPlatform[device.platform.rawValue, default: 0] += 1
            byGroup[device.group, default: 0] += 1
        }
        name = snapshot.name
        virtualTime = APITime(snapshot.virtualNow)
        virtualTimeMillis = snapshot.virtualNow
        endsAt = APITime(optional: snapshot.endsAt)
        endsAtMillis = snapshot.endsAt
        warp = snapshot.warp
        paused = snapshot.paused
        maxWarp = snapshot.maxWarp
        deterministic = snapshot.deterministic
        timing = TimingBody(deterministic: snapshot.deterministic)
        realSeconds = Rounding.seconds(metrics.realSeconds)
        devices = metrics.devices
        targetDevices = snapshot.targetDevices
        activeFaults = snapshot.timeline.filter { $0.phase == .active }.map {
            ActiveFault(fault: $0.fault, source: $0.source, action: $0.action.rawValue)
        }
        byState = APIMap(sorting: metrics.devicesByState)
        self.byPlatform = APIMap(sorting: byPlatform)
        self.byGroup = APIMap(sorting: byGroup)
        groups = snapshot.groups
        fixes = FixesBody(metrics.fixes)
        batches = Batches(
            sent: metrics.batchesSent,
            byOutcome: APIMap(sorting: metrics.batchesByOutcome))
        store = Store(
            errors: APIMap(sorting: metrics.storeErrorsByCause), fixesLost: APIMap(sorting: metrics.fixesLostByCause),
            geofenceEventsLost: APIMap(sorting: metrics.geofenceEventsLostByCause))
        currentLocation = CurrentLocationAnswers(
            fix: metrics.currentLocation.fix, timedOut: metrics.currentLocation.timedOut,
            unavailable: metrics.currentLocation.unavailable)
        pace = Pace(metrics.pace)
    }

    static let example = FleetSummaryBody(FleetSnapshot())
    static let component: String? = "FleetSummary"
    static let notes = [
        "activeFaults": APINote(
            "The faults on now, the fleet file's and those the API began, by number (see `GET /api/v1/faults`)."),
        "targetDevices": APINote(
            "The running devices the fleet file's `stages:` or `PATCH /api/v1/fleet`'s `devices` want now; null when "
                + "neither set one. `devices` counts every listed device, stopped ones standing by included."),
        "virtualTime": APINote(
            "The fleet's virtual clock: the instant every device has reached (with `maxWarp`, devices with nothing "
                + "to wait for may be up to a virtual minute ahead of it; an action runs once they all stand at one "
                + "instant)."),
        "virtualTimeMillis": APINote("`virtualTime` as Unix ms."),
        "endsAt": APINote(
            "When the run ends on the virtual clock (`run --for`, or the fleet file's `duration`); null when it has "
                + "no virtual-time limit."),
        "endsAtMillis": APINote("`endsAt` as Unix ms; null when it has no virtual-time limit."),
        "warp": APINote(
            "Virtual seconds per real second: as set, or with `maxWarp` the rate reached since max warp began."),
        "maxWarp": APINote(
            "Virtual time goes as fast as the machine goes (`run --warp max`, the fleet file's `clock.warp: max`, or "
                + "`warp: max` here) instead of following the wall clock: each device runs on until it needs an "
                + "answer it does not have yet; setting a numeric `warp` ends it."),
        "deterministic": APINote(
            "Every upload and token refresh takes 100 virtual ms (plus injected latency) whatever the server's real "
                + "time, virtual time waiting for each real answer (`run --deterministic`, the fleet file's "
                + "`clock.deterministic`, implied by max warp and kept after it ends); false: an answer takes its "
                + "real time × the warp."),
        "timing": APINote(
            "How answers take their time on the virtual clock now (`run --timing`; `auto` resolves to one of "
                + "these): `modelled` (as `deterministic`) or `as-answered` (real time × the warp)."),
        "byState": APINote("Listed devices by state (see DeviceSummary.state)."),
    ]
}

/// A device in `GET /api/v1/devices`, and the first members of its detail.
struct DeviceSummaryBody: APIBody {
    struct StoreProblem: APIBody {
        var cause: String
        var message: String
        var since: APITime

        static let example = StoreProblem(cause: "full", message: "", since: APITime(0))
        static let summary: String? =
            "Why the device's store fails, while it is in `storeError`; null otherwise. The device retries on its "
            + "own and leaves the state once the store writes again."
        static let notes = [
            "cause": APINote(oneOf: DeviceStoreError.causes),
            "message": APINote("SQLite's own message, e.g. `database or disk is full`."),
        ]
    }

    enum Permission: String, APIEnum { case granted, revoked }
    enum Network: String, APIEnum { case online, offline }

    var id: String
    var group: String
    var platform: Platform
    var model: String
    var osVersion: String
    var sdkVersion: String
    var installId: String
    var state: String
    var alive: Bool
    var permission: Permission
    var locationServices: Bool
    var network: Network
    var pending: Int
    var lastOutcome: String?
    var lastUploadAt: APITime?
    var latitude: Double?
    var longitude: Double?
    var storeError: StoreProblem?

    static let example = DeviceSummaryBody(
        id: "", group: "", platform: .android, model: "", osVersion: "", sdkVersion: "", installId: "", state: "",
        alive: false,
        permission: .granted, locationServices: false, network: .online, pending: 0, lastOutcome: nil,
        lastUploadAt: nil, latitude: nil, longitude: nil, storeError: nil)
    static let component: String? = "DeviceSummary"
    static let notes = [
        "state": APINote(
            "`idle`, `starting`, `tracking`, `paused(permissionRevoked)`, `paused(locationDisabled)`, "
                + "`paused(unknown)`, `stopped`, `dead` (the app's process is gone), or `storeError` (its store "
                + "fails; see `storeError`)."),
        "lastOutcome": APINote("The outcome of its last upload (see UploadRecord.outcome)."),
        "latitude": APINote("The last admitted fix's."),
        "osVersion": APINote("Its OS release, such as `18.7` (iOS) or `15` (Android)."),
        "sdkVersion": APINote("The Beekon SDK version its uploads report."),
    ]
}

extension DeviceSummaryBody {
    init(_ device: DeviceSnapshot) {
        id = device.id
        group = device.group
        platform = device.platform
        model = device.model
        osVersion = device.osVersion
        sdkVersion = device.sdkVersion
        installId = device.installID
        state = device.state.description
        alive = device.alive
        permission = device.permissionGranted ? .granted : .revoked
        locationServices = device.locationServicesOn
        network = device.online ? .online : .offline
        pending = device.pending
        lastOutcome = device.lastOutcome?.description
        lastUploadAt = APITime(optional: device.lastUploadAt)
        latitude = device.latitude
        longitude = device.longitude
        storeError = device.storeError.map {
            StoreProblem(cause: $0.cause, message: $0.message, since: APITime($0.since))
        }
    }
}

/// `GET /api/v1/devices/{id}`: the summary's members, then these.
struct DeviceDetailBody: APIBody {
    struct Sync: APIBody {
        var status: SyncView.Phase
        var consecutiveFailures: Int
        var nextAttemptAt: APITime?

        static let example = Sync(status: .idle, consecutiveFailures: 0, nextAttemptAt: nil)
    }

    struct Auth: APIBody {
        var state: AuthView.State
        var validUntil: APITime?
        var lastRefreshOutcome: String?
        var breakerOpenUntil: APITime?

        static let example = Auth(state: .none, validUntil: nil, lastRefreshOutcome: nil, breakerOpenUntil: nil)
        static let notes = [
            "lastRefreshOutcome": APINote("Labelled as an upload's outcome (`200`, `timeout`, `offline`).")
        ]
    }

    struct Change: APIBody {
        var at: APITime
        var state: String
        var cause: RelaunchCause?

        static let example = Change(at: APITime(0), state: "", cause: nil)
        static let notes = [
            "cause": APINote(
                "Why a dead app came back, on the first state it entered on relaunch (or the state it listed, "
                    + "entering none); null on every other change. `significantLocationChange`: iOS, the phone moved "
                    + "500 m from where the app died (or the phone booted). `workManager`: Android, the restart after "
                    + "a kill. `boot`: Android, the boot receiver after a reboot. `userLaunch`: iOS, the user opened "
                    + "the app (a kill's explicit relaunch time).")
        ]
    }

    /// The last answer to the SDK's `getCurrentLocation()` (the action of that name).
    struct CurrentLocation: APIBody {
        enum Answer: String, APIEnum { case fix, timedOut, unavailable }

        struct Fix: APIBody {
            var timestamp: APITime
            var latitude: Double
            var longitude: Double
            var accuracy: Double?
            var quality: Quality?

            static let example = Fix(timestamp: APITime(0), latitude: 0, longitude: 0, accuracy: nil, quality: nil)
            static let notes = [
                "quality": APINote("The SDK's flag, as an upload writes it; null when the fix is good.")
            ]
        }

        var requestId: Int
        var at: APITime
        var answer: Answer
        var fix: Omittable<Fix> = .absent
        var reason: Omittable<PauseReason> = .absent

        static let example = CurrentLocation(requestId: 1, at: APITime(0), answer: .fix, fix: .present(.example))
        static let notes = [
            "requestId": APINote("The device's calls numbered from 1, in the order they were made.", minimum: 1),
            "at": APINote("When the answer came."),
            "answer": APINote(
                "`fix`: the next OS fix (trigger manual, not stored); `timedOut`: none within the timeout (the "
                    + "SDK's null); `unavailable`: permission revoked or location services off (the SDK's error)."),
            "fix": APINote("With `fix` only."),
            "reason": APINote("With `unavailable` only: the precondition that failed."),
        ]
    }

    /// The members after the summary's.
    struct Members: APIBody {
        var config: ConfigBody?
        var sync: Sync
        var auth: Auth
        var fixes: FixLedger?
        var stateHistory: [Change]
        var uploads: [UploadRecordBody]
        var streams: [StreamRecordBody]
        var currentLocationCalls: Int
        var currentLocation: CurrentLocation?

        static let example = Members(
            config: nil, sync: .example, auth: .example, fixes: .example, stateHistory: [], uploads: [], streams: [],
            currentLocationCalls: 0, currentLocation: .example)
        static let notes = [
            "config": APINote(
                "The SDK config in force; header values, tokens and refresh payload/header values replaced by "
                    + "\"[redacted]\"; null before the device spawns."),
            "stateHistory": APINote(
                "The last 50 state changes (fewer in fleets of more than 40,000 devices: 2,000,000 ÷ devices, "
                    + "at least 10), oldest first.", maxItems: 50),
            "uploads": APINote(
                "The last 50 uploads (fewer in fleets of more than 40,000 devices: 2,000,000 ÷ devices, at least "
                    + "10), most recent first.", maxItems: 50),
            "streams": APINote(
                "The last 50 values of the device's SDK streams (spec §6; fewer in fleets of more than 40,000 "
                    + "devices, as for `uploads`), most recent first: `syncStatus` (`idle`, "
                    + "`inFlight`, `succeeded` with `count`, `retrying` with `attempt` and `nextAt`, `failed` with "
                    + "`reason` `auth` or `rejected`) and `authChanges` (`seeded` or `refreshed` with `expiresAt`, "
                    + "`deadCredentials`, `breakerOpened` with `until`). Never a token."),
            "currentLocationCalls": APINote("`getCurrentLocation` calls made to the device so far.", minimum: 0),
            "currentLocation": APINote("The last `getCurrentLocation` answer; null before the first."),
        ]
    }

    var summary: DeviceSummaryBody
    var members: Members

    /// One object: the summary's members and then the detail's.
    func encode(to encoder: any Encoder) throws {
        try summary.encode(to: encoder)
        try members.encode(to: encoder)
    }

    static let example = DeviceDetailBody(summary: .example, members: .example)
    static let component: String? = "DeviceDetail"
    static var notes: [String: APINote] { DeviceSummaryBody.notes.merging(Members.notes) { $1 } }
}

extension DeviceDetailBody {
    init(_ device: DeviceSnapshot) {
        summary = DeviceSummaryBody(device)
        members = Members(device)
    }
}

extension DeviceDetailBody.Members {
    init(_ device: DeviceSnapshot) {
        config = device.config.map(ConfigBody.init)
        sync = DeviceDetailBody.Sync(
            status: device.sync.phase, consecutiveFailures: device.sync.consecutiveFailures,
            nextAttemptAt: APITime(optional: device.sync.nextAttemptAt))
        auth = DeviceDetailBody.Auth(
            state: device.auth.state, validUntil: APITime(optional: device.auth.validUntil),
            lastRefreshOutcome: device.auth.lastRefreshOutcome?.description,
            breakerOpenUntil: APITime(optional: device.auth.breakerOpenUntil))
        fixes = device.fixes
        stateHistory = device.stateHistory.map {
            DeviceDetailBody.Change(at: APITime($0.at), state: $0.state.description, cause: $0.cause)
        }
        uploads = device.uploads.reversed().map(UploadRecordBody.init)
        streams = device.streams.reversed().map { StreamRecordBody($0, device: false) }
        currentLocationCalls = device.currentLocationCalls
        currentLocation = device.currentLocation.map(DeviceDetailBody.CurrentLocation.init)
    }
}

extension DeviceDetailBody.CurrentLocation {
    init(_ record: CurrentLocationRecord) {
        requestId = record.requestID
        at = APITime(record.at)
        switch record.answer {
        case .fix(let fix):
            answer = .fix
            self.fix = .present(
                Fix(
                    timestamp: APITime(fix.timestamp), latitude: fix.latitude, longitude: fix.longitude,
                    accuracy: fix.accuracy, quality: fix.quality))
        case .timedOut:
            answer = .timedOut
        case .unavailable(let reason):
            answer = .unavailable
            self.reason = .present(reason)
        }
    }
}

/// A device's SDK configuration with every secret (header values, tokens, refresh payload and
/// header values) replaced by `[redacted]`: the admin API never shows credentials.
struct ConfigBody: APIBody {
    static let mask = "[redacted]"

    struct Sync: APIBody {
        var url: String
        var headers: APIMap<String>
        var intervalSeconds: Int
        var batchSize: Int
        var syncThreshold: Int
        var auth: Auth?

        static let example = Sync(
            url: "", headers: APIMap([]), intervalSeconds: 0, batchSize: 0, syncThreshold: 0, auth: .example)
    }

    struct Auth: APIBody {
        var accessToken: String?
        var refreshToken: String?
        var expiresAt: Double?
        var strategy: AuthStrategy
        var refreshUrl: String?
        var refreshPayload: APIMap<String>
        var refreshHeaders: APIMap<String>
        var refreshBodyFormat: AuthBodyFormat
        var skewMarginSeconds: Double

        init(_ auth: AuthConfig) {
            accessToken = auth.accessToken.map { _ in ConfigBody.mask }
            refreshToken = auth.refreshToken.map { _ in ConfigBody.mask }
            expiresAt = auth.expiresAt
            strategy = auth.strategy
            refreshUrl = auth.refreshURL
            refreshPayload = ConfigBody.masked(auth.refreshPayload)
            refreshHeaders = ConfigBody.masked(auth.refreshHeaders)
            refreshBodyFormat = auth.refreshBodyFormat
            skewMarginSeconds = auth.skewMarginSeconds
        }

        static let example = Auth(AuthConfig())
    }

    var preset: Preset
    var minTimeBetweenLocationsSeconds: Double?
    var minDistanceBetweenLocationsMeters: Double?
    var whenStationary: StationaryMode
    var stationaryRadiusMeters: Double
    var detectActivity: Bool
    var sync: Sync?

    init(_ config: BeekonConfig) {
        preset = config.preset
        minTimeBetweenLocationsSeconds = config.minTimeBetweenLocationsSeconds
        minDistanceBetweenLocationsMeters = config.minDistanceBetweenLocationsMeters
        whenStationary = config.whenStationary
        stationaryRadiusMeters = config.stationaryRadiusMeters
        detectActivity = config.detectActivity
        sync = config.sync.map { sync in
            Sync(
                url: sync.url, headers: Self.masked(sync.headers), intervalSeconds: sync.intervalSeconds,
                batchSize: sync.batchSize, syncThreshold: sync.syncThreshold, auth: sync.auth.map(Auth.init))
        }
    }

    /// Keys as they are, every value masked.
    static func masked(_ map: StringMap) -> APIMap<String> {
        APIMap(map.map { (key: $0.key, value: mask) })
    }

    static let example = ConfigBody(BeekonConfig())
}

/// One upload as its device heard it.
struct UploadRecordBody: APIBody {
    var at: APITime
    var batchId: String
    var fixes: Int
    var outcome: String
    var latencyMs: Double
    var serverMs: Double?

    static let example = UploadRecordBody(
        at: APITime(0), batchId: "", fixes: 0, outcome: "", latencyMs: 0, serverMs: nil)
    static let component: String? = "UploadRecord"
    static let notes = [
        "at": APINote("When the device heard the outcome (virtual time)."),
        "outcome": APINote(
            "What the device heard: a status (`200`, `503`), a network failure (`timeout`, `refused`, "
                + "`too-many-open-files`, `reset`, `dns`, `tls`, `other`), or `offline` (the device's network went "
                + "down while the upload was out; heard at that instant, the rows kept for when it returns). A "
                + "`timeouts` fault's transfer is `timeout`, whatever the server answered."),
        "latencyMs": APINote(
            "Virtual milliseconds from send to the outcome heard: the server's answer time × the warp, plus "
                + "injected latency; 30000 for an upload the SDK timed out."),
        "serverMs": APINote(
            "Wall-clock milliseconds the server took to answer; null when it had not answered by the time the "
                + "device heard the outcome (its timeout, or `offline`)."),
    ]
}

extension UploadRecordBody {
    init(_ upload: UploadRecord) {
        at = APITime(upload.at)
        batchId = upload.batchID.text
        fixes = upload.fixes
        outcome = upload.outcome.description
        latencyMs = Rounding.millis(upload.latencyMillis)
        serverMs = upload.serverMillis.map(Rounding.millis)
    }
}

/// A value of a device's SDK stream: `{"at", "stream": "syncStatus", "status", …}` or
/// `{"at", "stream": "authChanges", "change", …}`; with `device` as the `sdk` live event.
struct StreamRecordBody: APIBody {
    enum Stream: String, APIEnum { case syncStatus, authChanges }
    enum Status: String, APIEnum { case idle, inFlight, succeeded, retrying, failed }
    enum Change: String, APIEnum { case seeded, refreshed, deadCredentials, breakerOpened }

    var device: Omittable<String> = .absent
    var at: APITime
    var stream: Stream
    var status: Omittable<Status> = .absent
    var count: Omittable<Int> = .absent
    var attempt: Omittable<Int> = .absent
    var nextAt: Omittable<APITime> = .absent
    var reason: Omittable<String> = .absent
    var change: Omittable<Change> = .absent
    /// Present, and maybe null, for `seeded` and `refreshed`.
    var expiresAt: Omittable<APITime?> = .absent
    var until: Omittable<APITime> = .absent

    static let example = StreamRecordBody(at: APITime(0), stream: .syncStatus)
    static let component: String? = "StreamRecord"
    static let notes = [
        "device": APINote("In the `sdk` live event only."),
        "count": APINote(minimum: 0),
        "attempt": APINote(minimum: 1),
        "reason": APINote(oneOf: ["auth", "rejected"]),
    ]
}

extension StreamRecordBody {
    init(_ record: StreamRecord, device: Bool) {
        if device { self.device = .present(record.device) }
        at = APITime(record.at)
        switch record.value {
        case .syncStatus(let value):
            stream = .syncStatus
            switch value {
            case .idle: status = .present(.idle)
            case .inFlight: status = .present(.inFlight)
            case .succeeded(let count):
                status = .present(.succeeded)
                self.count = .present(count)
            case .retrying(let attempt, let nextAt):
                status = .present(.retrying)
                self.attempt = .present(attempt)
                self.nextAt = .present(APITime(nextAt))
            case .failed(let failure):
                status = .present(.failed)
                reason = .present(failure.rawValue)
            }
        case .authChange(let value):
            stream = .authChanges
            switch value {
            case .seeded(let expiresAt):
                change = .present(.seeded)
                self.expiresAt = .present(APITime(optional: expiresAt))
            case .refreshed(let expiresAt):
                change = .present(.refreshed)
                self.expiresAt = .present(APITime(optional: expiresAt))
            case .deadCredentials: change = .present(.deadCredentials)
            case .breakerOpened(let until):
                change = .present(.breakerOpened)
                self.until = .present(APITime(until))
            }
        }
    }
}

/// A fix still in a device's store.
struct StoredLocationBody: APIBody {
    var id: String
    var timestamp: APITime
    var latitude: Double
    var longitude: Double
    var accuracy: Double?
    var speed: Double?
    var trigger: String
    var uploaded: Bool

    static let example = StoredLocationBody(
        id: "", timestamp: APITime(0), latitude: 0, longitude: 0, accuracy: nil, speed: nil, trigger: "",
        uploaded: false)
    static let component: String? = "StoredLocation"
}

extension StoredLocationBody {
    /// Every row listed is still in the store, which deletes a fix once the server acknowledges
    /// it, so `uploaded` is false.
    init(_ fix: Location) {
        id = fix.id.text
        timestamp = APITime(fix.timestamp)
        latitude = fix.latitude
        longitude = fix.longitude
        accuracy = fix.accuracy
        speed = fix.speed
        trigger = fix.trigger.rawValue
        uploaded = false
    }
}

/// `GET /api/v1/devices`: one page.
struct DeviceListBody: APIBody {
    var devices: [DeviceSummaryBody]
    var total: Int
    var next: String?

    static let example = DeviceListBody(devices: [], total: 0, next: nil)
    static let component: String? = "DeviceList"
    static let notes = [
        "total": APINote("How many devices match the filters."),
        "next": APINote("The cursor of the next page; null on the last."),
    ]
}

/// `GET /api/v1/devices/{id}/uploads`.
struct UploadsBody: APIBody {
    var uploads: [UploadRecordBody]

    static let example = UploadsBody(uploads: [])
    static let component: String? = "Uploads"
    static let notes = ["uploads": APINote("The last 50, most recent first.", maxItems: 50)]
}

/// `GET /api/v1/devices/{id}/locations`.
struct LocationsBody: APIBody {
    var locations: [StoredLocationBody]

    static let example = LocationsBody(locations: [])
    static let component: String? = "Locations"
}

/// An action's answer: how many devices it was applied to, and which.
struct AppliedBody: APIBody {
    var applied: Int
    var ids: [String]

    init(_ ids: [String]) {
        applied = ids.count
        self.ids = ids
    }

    static let example = AppliedBody([])
    static let component: String? = "Applied"
}

/// A spawn's answer: the new devices' ids.
struct SpawnedBody: APIBody {
    var ids: [String]

    static let example = SpawnedBody(ids: [])
    static let component: String? = "Spawned"
}

/// `GET /api/v1/stats`.
struct StatsBody: APIBody {
    enum Kind: String, APIEnum { case status, network }

    struct Window: APIBody {
        var count: Int
        var ratePerSecond: Double
        var latencyMs: PercentilesBody
        var serverLatencyMs: PercentilesBody

        /// `tally` over the window's `seconds` of real time.
        init(_ tally: UploadStats.Tally, seconds: Double) {
            count = tally.count
            ratePerSecond = StatsBody.rate(tally.count, seconds)
            latencyMs = PercentilesBody(tally.latency)
            serverLatencyMs = PercentilesBody(tally.serverLatency)
        }

        static let example = Window(UploadStats.Tally(), seconds: 1)
        static let notes = ["ratePerSecond": APINote("Over the last 10 s of real time (or the run's, if shorter).")]
    }

    /// Per second, to the hundredth.
    static func rate(_ count: Int, _ seconds: Double) -> Double {
        Rounding.perSecond(Double(count) / Swift.max(seconds, 0.001))
    }

    struct Outcome: APIBody {
        var outcome: String
        var kind: Kind
        var count: Int
        var ratePerSecond: Double
        var latencyMs: PercentilesBody
        var serverLatencyMs: PercentilesBody
        var last10s: Window

        static let example = Outcome(
            outcome: "", kind: .status, count: 0, ratePerSecond: 0, latencyMs: .example, serverLatencyMs: .example,
            last10s: .example)
        static let notes = [
            "outcome": APINote("What the devices heard (see UploadRecord.outcome)."),
            "count": APINote("Over the run."),
            "ratePerSecond": APINote(
                "Since the last reset (or over the whole run), per second of real time; `last10s` has the last "
                    + "10 s's."),
            "latencyMs": APINote("Virtual ms from send to outcome, as the devices lived it."),
            "serverLatencyMs": APINote(
                "Real ms the server took, over the uploads of this outcome it answered (zeros when none)."),
        ]
    }

    var outcomes: [Outcome]
    var fixes: FixesBody
    var uploadsPerSecond: Double
    var devicesByState: APIMap<Int>
    var since: APITime?
    var timing: TimingBody
    var latencyMs: PercentilesBody
    var serverLatencyMs: PercentilesBody
    var fleetHealth: FleetHealthBody

    init(_ snapshot: FleetSnapshot) {
        let window = UInt64(UploadStats.windowSeconds)
        let recent = snapshot.metrics.uploads.window(
            from: snapshot.realSecond + 1 >= window ? snapshot.realSecond + 1 - window : 0, through: snapshot.realSecond
        )
        let seconds = Swift.max(1, Swift.min(Double(window), snapshot.metrics.realSeconds))
        var recentTotal = 0
        let uploads = snapshot.metrics.uploads
        // Since the last reset: its real seconds, else the run's.
        let counted =
            uploads.resetAt.map { Double(snapshot.realSecond) - Double($0.realSecond) }
            ?? snapshot.metrics.realSeconds
        outcomes = uploads.sinceReset.sorted(by: { $0.key < $1.key }).map { outcome, tally in
            let last = recent[outcome] ?? UploadStats.Tally()
            recentTotal += last.count
            return Outcome(
                outcome: outcome.description, kind: outcome.isNetwork ? .network : .status, count: tally.count,
                ratePerSecond: Self.rate(tally.count, Swift.max(1, counted)),
                latencyMs: PercentilesBody(tally.latency), serverLatencyMs: PercentilesBody(tally.serverLatency),
                last10s: Window(last, seconds: seconds))
        }
        fixes = FixesBody(snapshot.metrics.fixes)
        uploadsPerSecond = Self.rate(recentTotal, seconds)
        devicesByState = APIMap(sorting: snapshot.metrics.devicesByState)
        since = APITime(optional: uploads.resetAt?.virtual)
        timing = TimingBody(deterministic: snapshot.deterministic)
        latencyMs = PercentilesBody(snapshot.metrics.latency)
        serverLatencyMs = PercentilesBody(snapshot.metrics.serverLatency)
        fleetHealth = FleetHealthBody(snapshot.metrics)
    }

    static let example = StatsBody(FleetSnapshot())
    static let component: String? = "Stats"
    static let notes = [
        "outcomes": APINote("Since the statistics were last reset (`since`), else over the whole run."),
        "uploadsPerSecond": APINote("Over the last 10 s of real time."),
        "since": APINote(
            "When `DELETE /api/v1/stats` last reset the statistics (virtual time); null when never. The run's own "
                + "figures (fix counts, thresholds, `/metrics`' counters) never reset."),
        "timing": APINote(
            "How answers take their time on the virtual clock now, which says what `latencyMs` means: `modelled` "
                + "(100 virtual ms plus injected latency) or `as-answered` (real time × the warp)."),
        "latencyMs": APINote("Every upload over the run: virtual ms from send to outcome, as the devices heard it."),
        "serverLatencyMs": APINote(
            "Every upload the server answered over the run (heard in time or not): real ms, the same at any warp."),
    ]
}

/// The `action` live event: an action just applied.
struct ActionEventBody: APIBody {
    var action: FleetAction.Name
    var applied: Int
    var at: APITime

    static let example = ActionEventBody(action: .sync, applied: 0, at: APITime(0))
    static let component: String? = "ActionEvent"
    static let notes = ["applied": APINote("How many devices it was applied to.")]
}

/// The `devices` live event: devices whose state, pending count or last outcome changed.
struct DevicesEventBody: APIBody {
    struct Change: APIBody {
        var id: String
        var state: String
        var pending: Int
        var lastOutcome: String?

        static let example = Change(id: "", state: "", pending: 0, lastOutcome: nil)
    }

    var changes: [Change]
    var truncated: Omittable<Bool>

    static let example = DevicesEventBody(changes: [], truncated: .present(true))
    static let component: String? = "DevicesEvent"
    static let notes = [
        "truncated": APINote(
            "More changed than one event carries (the rest follow in the next), or changes were missed (the "
                + "fleet's change log moved past them): list the devices to be sure.")
    ]
}

/// The `uploads` live event: the last whole second's uploads.
struct UploadsEventBody: APIBody {
    struct Latency: APIBody {
        var p50: Double
        var p95: Double
        var p99: Double

        static let example = Latency(p50: 0, p95: 0, p99: 0)
    }

    var byOutcome: APIMap<Int>
    var latencyMs: Latency

    static let example = UploadsEventBody(byOutcome: APIMap([]), latencyMs: .example)
    static let component: String? = "UploadsEvent"
}

extension TimelineFaultView.Phase: APIEnum, Encodable {}
extension ActionSource: APIEnum {}

/// One fault as the run stands: the fleet file's timeline, or one the API began.
struct TimelineFaultBody: APIBody {
    var fault: Int
    var source: ActionSource
    var line: Int?
    var action: String
    var selector: String
    var startsAt: APITime
    var endsAt: APITime?
    var phase: TimelineFaultView.Phase
    var applied: Int?
    var endable: Bool
    var endedEarlyAt: APITime?

    init(_ view: TimelineFaultView) {
        fault = view.fault
        source = view.source
        line = view.line
        action = view.action.rawValue
        selector = view.selector
        startsAt = APITime(view.startsAt)
        endsAt = APITime(optional: view.endsAt)
        phase = view.phase
        applied = view.applied
        endable = view.endable
        endedEarlyAt = APITime(optional: view.endedEarlyAt)
    }

    static let example = TimelineFaultBody(
        TimelineFaultView(
            fault: 0, source: .timeline, line: 1, action: .networkOffline, selector: "all", startsAt: 0, endsAt: nil,
            phase: .upcoming, applied: nil, endable: false, endedEarlyAt: nil))
    static let notes = [
        "fault": APINote(
            "Its number: its place in the fleet file's `faults:` (from 0), or, for one the API began, after them; "
                + "`DELETE /api/v1/faults/{fault}` ends it."),
        "source": APINote(
            "Where it came from: the fleet file's `timeline`, or the `api` (an action that begins a fault, applied "
                + "through REST or the page; its opposite action through the API, or `DELETE`, ends it)."),
        "line": APINote("Its line in the fleet file; null for the API's."),
        "selector": APINote("Which devices, as the fleet file writes it."),
        "endsAt": APINote("When its `for` ends it, or when the API ended it; null without either."),
        "applied": APINote("Devices it was applied to; null until it starts."),
        "endable": APINote("Whether `DELETE /api/v1/faults/{fault}` can end it now: on, with an opposite action."),
        "endedEarlyAt": APINote(
            "When the API ended it (`DELETE /api/v1/faults/{fault}`, or its opposite action); null otherwise."),
    ]
}

/// `GET /api/v1/faults` and `DELETE /api/v1/faults/{fault}`'s answer.
struct FaultsBody: APIBody {
    var faults: [TimelineFaultBody]

    init(_ snapshot: FleetSnapshot) {
        faults = snapshot.timeline.map(TimelineFaultBody.init)
    }

    static let example = FaultsBody(FleetSnapshot())
    static let component: String? = "Faults"
    static let summary: String? =
        "The faults: the fleet file's timeline (upcoming, active with its end, done), then those the API began."
}
