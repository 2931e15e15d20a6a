import BeekonDevice
import BeekonStore
import FleetDescription
import FleetEngine
import FleetReport

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

    /// The world the device's phone is in (`DeviceWorld`).
    struct World: APIBody {
        struct Network: APIBody {
            var uplinkKbps: Double
            var latencyMedianMillis: Int64
            var latencyP95Millis: Int64
            var loss: Double
            var dns: Double
            var tls: Double
            var resetMidBody: Double

            static let example = Network(NetworkProfile.named(.lte))
            static let notes = [
                "uplinkKbps": APINote("Uplink bandwidth.", range: NetworkProfile.uplinkKbpsRange),
                "latencyMedianMillis": APINote("The latency's median.", range: NetworkProfile.latencyMedianRange),
                "latencyP95Millis": APINote("The latency's 95th percentile.", range: NetworkProfile.latencyTailRange),
                "loss": APINote("The share of the uplink's packets lost.", range: NetworkProfile.lossRange),
                "dns": APINote("The share of name lookups that fail.", range: NetworkProfile.shareRange),
                "tls": APINote("The share of TLS handshakes that fail.", range: NetworkProfile.shareRange),
                "resetMidBody": APINote("The share of bodies reset part-way.", range: NetworkProfile.shareRange),
            ]
        }

        struct Flapping: APIBody {
            var meanOnlineMillis: Int64
            var meanOfflineMillis: Int64
            var handover: Double

            static let example = Flapping(meanOnlineMillis: 1_200_000, meanOfflineMillis: 45_000, handover: 0.25)
            static let notes = [
                "meanOnlineMillis": APINote("The mean stretch up.", range: FleetDescription.Flapping.meanRange),
                "meanOfflineMillis": APINote("The mean stretch down.", range: FleetDescription.Flapping.meanRange),
                "handover": APINote(
                    "The share of drops that are a Wi-Fi <-> cellular handover.",
                    range: FleetDescription.Flapping.handoverRange),
            ]
        }

        var network: Network?
        var latencyMillis: Int64
        var timeoutFraction: Double
        var captivePortal: FleetAction.PortalAnswer?
        var flapping: Flapping?
        var networkUp: Bool
        var doze: DeviceWorld.DozePhase?
        var standbyBucket: StandbyBucket
        var oemKillsPerDay: Double
        var clockOffsetMillis: Int64?

        static let example = World(
            network: .example, latencyMillis: 0, timeoutFraction: 0, captivePortal: nil, flapping: .example,
            networkUp: true, doze: .active, standbyBucket: .active, oemKillsPerDay: 0, clockOffsetMillis: nil)
        static let notes = [
            "network": APINote("Its network's numbers (`network:`, `networkProfile`); null: not modelled."),
            "latencyMillis": APINote("What a `latency` fault adds to each request.", range: FleetAction.latencyRange),
            "timeoutFraction": APINote(
                "The share of requests a `timeouts` fault times out.", range: FleetAction.timeoutFractionRange),
            "captivePortal": APINote("The captive portal its network sits behind; null: none."),
            "flapping": APINote("How its network flaps (`flapping:`, `flapping`); null: it does not."),
            "networkUp": APINote(
                "Whether its flapping has the phone's network up now (true without flapping); `online` also "
                    + "counts `networkOffline` faults and Doze."),
            "doze": APINote(
                "Where its deep Doze is (`doze:`, `doze`): `active` (moving), `still` (counting towards idle), "
                    + "`idle` (apps without the network), `window` (a maintenance window); null: it does not "
                    + "doze (iOS, or no doze)."),
            "standbyBucket": APINote(
                "Its app's App Standby bucket (`standbyBucket:`, `standbyBucket`): it defers WorkManager's restart "
                    + "after a kill on Android."),
            "oemKillsPerDay": APINote(
                "Its battery manager's kills per virtual day (`oemKills:`, `oemKills`); 0: none.",
                range: OEMKills.perDayRange),
            "clockOffsetMillis": APINote(
                "Its clock minus true time, ms, as of its last act (`deviceClock:`, `clockJump`, `clockOffset`); "
                    + "null: true time."),
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
        var world: World
        var currentLocationCalls: Int
        var currentLocation: CurrentLocation?

        static let example = Members(
            config: nil, sync: .example, auth: .example, fixes: .example, stateHistory: [], uploads: [], streams: [],
            world: .example, currentLocationCalls: 0, currentLocation: .example)
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
            "world": APINote(
                "The world its phone is in: network, flapping, Doze, App Standby bucket, battery manager, clock."),
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
