import FleetEngine
import FleetReport

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
            "The running devices the fleet file's `stages:` or `daily:` or `PATCH /api/v1/fleet`'s `devices` want "
                + "now; null when none set one. `devices` counts every listed device, stopped ones standing by "
                + "included."),
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
        "paused": APINote(
            "The devices' virtual clock stands still (`PATCH /api/v1/fleet`'s `paused`): nothing new reaches the "
                + "server, and what it answered has been heard."),
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
