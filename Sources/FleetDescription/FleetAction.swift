import BeekonDevice

/// What can be done to devices, from the fleet file's fault timeline or the admin API: one case
/// per action, its parameters as associated values. Each is described once, in `catalog`; the
/// timeline's reader, the REST API, its OpenAPI document, the CLI's `actions` and the page all
/// read that description.
public enum FleetAction: Sendable, Hashable {
    case revokePermission
    case grantPermission
    case locationServicesOff
    case locationServicesOn
    case osError
    case background
    case foreground
    /// `relaunchAfterMillis`: when the platform's rule relaunches the app (nil: its default).
    case kill(relaunchAfterMillis: Int64?)
    /// `relaunchAfterMillis`: how long the phone is down (nil: a minute).
    case reboot(relaunchAfterMillis: Int64?)
    case networkOffline
    case networkOnline
    case latency(millis: Int64)
    case timeouts(fraction: Double)
    case start
    case stop
    case sync
    case configure(BeekonConfig)
    case setExtras(StringMap)
    case addGeofences([Geofence])
    case removeGeofences(ids: [String])
    /// The SDK's `getCurrentLocation(timeout, accuracy)`: the next OS fix within the timeout.
    case getCurrentLocation(timeoutMillis: Int64, accuracy: AccuracyRequest)
    /// The SDK's `deleteLocations(before)`: stored fixes at or before the instant (Unix ms), all when nil.
    case deleteLocations(before: Int64?)
    /// The SDK's `shutdown()`: the in-memory state holder goes; the store stays.
    case shutdown
    /// The OS provider reports fixes `meters` away from the truth on `bearing` (degrees; nil: a
    /// seeded draw per device) for `forMillis` (nil: the timeline's `for`, else a minute).
    case gpsJump(meters: Double, bearing: Double?, forMillis: Int64?)
    /// The device's network becomes this one (a named profile, numbers overriding it); with
    /// nothing given, its group's own again.
    case networkProfile(NetworkSpec)
    /// The phone's clock jumps `millis` at once (back when negative), as a user or a carrier's
    /// time sets it; the group's NTP (`deviceClock.ntp`) sets it right at its next sync.
    case clockJump(millis: Int64)
    /// The phone's clock is set `millis` off true time (0: true time), drifting on from there.
    case clockOffset(millis: Int64)
    /// The phone's network sits behind a captive portal (a hotel's, a station's Wi-Fi): its
    /// requests are answered by the portal, not the server (`off`: the portal is gone).
    case captivePortal(PortalAnswer)
    /// The phone's network flaps (`FlappingSpec` over the group's own `flapping:`): drops and
    /// comes back on the device's own seeded clock, a share of the drops a handover between
    /// Wi-Fi and cellular; nothing given, its group's own again.
    case flapping(FlappingSpec)
    /// Android phones' battery managers kill the app (seed 02) at their maker's rate or at one
    /// for all (`OEMKills`); nil: the group's own `oemKills:` again (none without one).
    case oemKills(OEMKills?)
    /// Android phones doze when still (`DozeSpec` over the group's own `doze:`); nothing given,
    /// the group's own again.
    case doze(DozeSpec)
    /// The app is in this App Standby bucket, which defers WorkManager's restart after a kill
    /// (`StandbyBucket`); nil: the group's own `standbyBucket:` again.
    case standbyBucket(StandbyBucket?)

    /// What a captive portal answers every request with.
    public enum PortalAnswer: String, Sendable, Hashable, CaseIterable {
        /// 200 with its HTML login page: the SDK takes it as a 2xx and deletes the batch's rows.
        case html200
        /// 302 to its login page: a 3xx, "permanent" to the SDK, which keeps the rows.
        case redirect302
        /// No portal.
        case off
    }
    /// The user uninstalls the app and installs it again (seed 04: uninstalling wipes the DB): a
    /// new install id, an empty store, the old one's pending fixes never sent; the app does
    /// nothing until the user opens it, `openAfterMillis` later (nil: at once).
    case reinstall(openAfterMillis: Int64?)
    /// The app is updated to SDK `sdkVersion`: the update kills the process and relaunches it;
    /// the store (pending rows, a held batch) stays.
    case upgrade(sdkVersion: String)

    /// An action's name, as fleet files and the API write it.
    public enum Name: String, Sendable, Hashable, CaseIterable, Codable {
        case revokePermission, grantPermission, locationServicesOff, locationServicesOn, osError
        case background, foreground, kill, reboot, networkOffline, networkOnline, latency, timeouts
        case start, stop, sync, configure, setExtras, addGeofences, removeGeofences
        case getCurrentLocation, deleteLocations, shutdown, gpsJump, networkProfile, clockJump, clockOffset
        case captivePortal, reinstall, upgrade, flapping, oemKills, doze, standbyBucket

        /// "one of …" every name, for errors.
        public static let oneOf = "one of \(allCases.map(\.rawValue).joined(separator: ", "))"

        /// What the action does and takes.
        public var details: ActionDescription { FleetAction.catalog[self]! }
    }

    public var name: Name {
        switch self {
        case .revokePermission: .revokePermission
        case .grantPermission: .grantPermission
        case .locationServicesOff: .locationServicesOff
        case .locationServicesOn: .locationServicesOn
        case .osError: .osError
        case .background: .background
        case .foreground: .foreground
        case .kill: .kill
        case .reboot: .reboot
        case .networkOffline: .networkOffline
        case .networkOnline: .networkOnline
        case .latency: .latency
        case .timeouts: .timeouts
        case .start: .start
        case .stop: .stop
        case .sync: .sync
        case .configure: .configure
        case .setExtras: .setExtras
        case .addGeofences: .addGeofences
        case .removeGeofences: .removeGeofences
        case .getCurrentLocation: .getCurrentLocation
        case .deleteLocations: .deleteLocations
        case .shutdown: .shutdown
        case .gpsJump: .gpsJump
        case .networkProfile: .networkProfile
        case .clockJump: .clockJump
        case .clockOffset: .clockOffset
        case .captivePortal: .captivePortal
        case .reinstall: .reinstall
        case .upgrade: .upgrade
        case .flapping: .flapping
        case .oemKills: .oemKills
        case .doze: .doze
        case .standbyBucket: .standbyBucket
        }
    }

    /// The action `name` with the parameters a reader found for it (by parameter name, each
    /// of its kind): nil when a required one is missing.
    public init?(_ name: Name, _ values: [String: ActionParameter.Value]) {
        guard let action = name.details.make(values) else { return nil }
        self = action
    }
}

extension FleetAction {
    /// The action's parameters by name: what `init(_:_:)` takes back.
    public var parameterValues: [String: ActionParameter.Value] { name.details.values(self) }
}

extension FleetAction {
    /// `latency`'s `ms`: up to 10 minutes added to each request.
    public static let latencyRange = NumberRange.integer(0...600_000, unit: "ms")
    /// `timeouts`' `fraction`: the share of requests that time out.
    public static let timeoutFractionRange = NumberRange(0...1)
    /// `kill`'s and `reboot`'s `relaunchAfterSeconds`: up to 366 days.
    public static let relaunchAfterRange = NumberRange(0...31_622_400, unit: "s")

    /// `reinstall`'s `openAfterSeconds`: up to 30 days until the user opens the new install.
    public static let openAfterRange = NumberRange(0...2_592_000, unit: "s")

    /// `getCurrentLocation`'s `timeoutSeconds`: up to 10 minutes (the SDK's default is 15 s).
    public static let currentLocationTimeoutRange = NumberRange(0...600, unit: "s")
    /// `gpsJump`'s `meters`: up to half the Earth's circumference.
    public static let gpsJumpMetersRange = NumberRange(1...20_000_000, unit: "m")
    /// `gpsJump`'s `bearing`, clockwise from north.
    public static let bearingRange = NumberRange(0...360, unit: "degrees")
    /// `gpsJump`'s `forSeconds`: up to 366 days, as a timeline `for`.
    public static let gpsJumpForRange = NumberRange(0...31_622_400, unit: "s")
    /// A jump far enough that the SDK's 300 m/s rule flags it even 2.5 minutes after the last
    /// admitted fix (the saver preset admits one a minute).
    public static let gpsJumpDefaultMeters = 50_000.0
    /// How long a jump lasts without `for` or `forSeconds`.
    public static let gpsJumpDefaultMillis: Int64 = 60_000

    /// `networkProfile`: its parameters are a group's `network:` map's keys.
    private static let networkProfileDescription = ActionDescription(
        name: .networkProfile,
        summary:
            "the device's network becomes a profile (a name, numbers overriding it; numbers alone override the "
            + "group's own network): each upload and refresh takes its modelled latency, body ÷ bandwidth and "
            + "retransmissions, and a share fail as dns, tls or reset (never sent); with no params, the group's own "
            + "network again",
        parameters: [
            ActionParameter(
                name: "profile", kind: .choice(NetworkProfile.Name.allCases.map(\.rawValue)), required: false,
                summary: "a named profile (default: the group's own network)", example: #""edge""#),
            ActionParameter(
                name: "uplinkKbps", kind: .number(NetworkProfile.uplinkKbpsRange), required: false,
                summary: "uplink bandwidth: the gzipped body takes its size ÷ this", example: "2000"),
            ActionParameter(
                name: "latency", kind: .latency, required: false,
                summary: "the link's latency as a log-normal: its median and its tail (p95 = median + tail), ms",
                example: #"{"median": 60, "tail": 190}"#),
            ActionParameter(
                name: "loss", kind: .number(NetworkProfile.lossRange), required: false,
                summary: "share of uplink packets lost (each a retransmission; 6 in a row reset)", example: "0.01"),
            ActionParameter(
                name: "dns", kind: .number(NetworkProfile.shareRange), required: false,
                summary: "share of transfers whose name lookup fails", example: "0.002"),
            ActionParameter(
                name: "tls", kind: .number(NetworkProfile.shareRange), required: false,
                summary: "share of transfers whose TLS handshake fails", example: "0.001"),
            ActionParameter(
                name: "resetMidBody", kind: .number(NetworkProfile.shareRange), required: false,
                summary: "share of transfers reset part-way through the body", example: "0.005"),
        ], ending: .undoneBy(.networkProfile(NetworkSpec())),
        make: { values in
            var spec = NetworkSpec()
            if case .choice(let text)? = values["profile"] {
                guard let name = NetworkProfile.Name(rawValue: text) else { return nil }
                spec.profile = name
            }
            if case .number(let kbps)? = values["uplinkKbps"] { spec.uplinkKbps = kbps }
            if case .latency(let median, let tail)? = values["latency"] {
                spec.latencyMedianMillis = median
                spec.latencyTailMillis = tail
            }
            if case .number(let share)? = values["loss"] { spec.loss = share }
            if case .number(let share)? = values["dns"] { spec.dns = share }
            if case .number(let share)? = values["tls"] { spec.tls = share }
            if case .number(let share)? = values["resetMidBody"] { spec.resetMidBody = share }
            return .networkProfile(spec)
        },
        values: { action in
            guard case .networkProfile(let spec) = action else { return [:] }
            // Only what was given: the rest is the profile's, or the group's.
            var values: [String: ActionParameter.Value] = [:]
            if let profile = spec.profile { values["profile"] = .choice(profile.rawValue) }
            if let kbps = spec.uplinkKbps { values["uplinkKbps"] = .number(kbps) }
            if spec.latencyMedianMillis != nil || spec.latencyTailMillis != nil {
                values["latency"] = .latency(medianMillis: spec.latencyMedianMillis, tailMillis: spec.latencyTailMillis)
            }
            if let share = spec.loss { values["loss"] = .number(share) }
            if let share = spec.dns { values["dns"] = .number(share) }
            if let share = spec.tls { values["tls"] = .number(share) }
            if let share = spec.resetMidBody { values["resetMidBody"] = .number(share) }
            return values
        })

    /// `flapping`: its parameters are a group's `flapping:` map's keys.
    private static let flappingDescription = ActionDescription(
        name: .flapping,
        summary:
            "the phone's network drops and comes back on its own seeded clock (up and down for exponential "
            + "stretches of these means), a share of the drops a Wi-Fi ↔ cellular handover instead: what it has "
            + "out is reset and it leaves from its other address; numbers left out are the group's own flapping "
            + "(or the standard one); with no params, the group's own again",
        parameters: [
            ActionParameter(
                name: "meanOnline", kind: .millis(Flapping.meanRange), required: false,
                summary: "the mean time the network stays up, ms (default 20 minutes)", example: "1200000"),
            ActionParameter(
                name: "meanOffline", kind: .millis(Flapping.meanRange), required: false,
                summary: "the mean time it stays down after a drop, ms (default 45 s)", example: "45000"),
            ActionParameter(
                name: "handover", kind: .number(Flapping.handoverRange), required: false,
                summary: "the share of drops that are a Wi-Fi ↔ cellular handover (default 0.25)", example: "0.25"),
        ], ending: .undoneBy(.flapping(FlappingSpec())),
        make: { values in
            var spec = FlappingSpec()
            spec.meanOnlineMillis = values["meanOnline"]?.millis
            spec.meanOfflineMillis = values["meanOffline"]?.millis
            if case .number(let share)? = values["handover"] { spec.handover = share }
            return .flapping(spec)
        },
        values: { action in
            guard case .flapping(let spec) = action else { return [:] }
            var values: [String: ActionParameter.Value] = [:]
            if let mean = spec.meanOnlineMillis { values["meanOnline"] = .millis(mean) }
            if let mean = spec.meanOfflineMillis { values["meanOffline"] = .millis(mean) }
            if let share = spec.handover { values["handover"] = .number(share) }
            return values
        })

    /// `oemKills`: a maker's rate by default, one for all with `perDay`, the group's own with
    /// `rates: group`.
    private static let oemKillsDescription = ActionDescription(
        name: .oemKills,
        summary:
            "Android phones' battery managers kill the app's foreground service on a seeded Poisson clock each, at "
            + "their maker's rate (Xiaomi and Huawei 3 a day; Samsung, OnePlus, OPPO, vivo, realme 2; others 0.5; "
            + "Pixels 0) or at perDay for all; WorkManager relaunches it after 60 s (plus its standbyBucket's "
            + "deferral); iOS phones are spared; "
            + "rates: group puts the group's own back",
        parameters: [
            ActionParameter(
                name: "perDay", kind: .number(OEMKills.perDayRange), required: false,
                summary: "kills per virtual day for every Android phone (default: its maker's rate)", example: "2"),
            ActionParameter(
                name: "rates", kind: .choice(["vendor", "group"]), required: false,
                summary: "vendor: each maker's rate (the default); group: the group's own oemKills",
                example: #""vendor""#),
        ], ending: .undoneBy(.oemKills(nil)),
        make: { values in
            if case .number(let rate)? = values["perDay"] { return .oemKills(.perDay(rate)) }
            if case .choice("group")? = values["rates"] { return .oemKills(nil) }
            return .oemKills(.vendor)
        },
        values: { action in
            guard case .oemKills(let kills) = action else { return [:] }
            switch kills {
            case nil: return ["rates": .choice("group")]
            case .vendor: return [:]
            case .perDay(let rate): return ["perDay": .number(rate)]
            }
        })

    /// `doze`: its parameters are a group's `doze:` map's keys.
    private static let dozeDescription = ActionDescription(
        name: .doze,
        summary:
            "Android phones doze when still, as AOSP does: after `after` still they go idle (apps lose the network, "
            + "location comes at most every 5 minutes) but for maintenance windows `window` long after 1 h, 2 h, 4 h, "
            + "then every 6 h; moving ends it; numbers left out are the group's own doze (or AOSP's); with no params, "
            + "the group's own again",
        parameters: [
            ActionParameter(
                name: "after", kind: .millis(Doze.afterRange), required: false,
                summary: "how long still before idle, ms (default 30 minutes)", example: "1800000"),
            ActionParameter(
                name: "window", kind: .millis(Doze.windowRange), required: false,
                summary: "how long each maintenance window lasts, ms (default 5 minutes)", example: "300000"),
        ], ending: .undoneBy(.doze(DozeSpec())),
        make: { values in .doze(DozeSpec(afterMillis: values["after"]?.millis, windowMillis: values["window"]?.millis))
        },
        values: { action in
            guard case .doze(let spec) = action else { return [:] }
            var values: [String: ActionParameter.Value] = [:]
            if let after = spec.afterMillis { values["after"] = .millis(after) }
            if let window = spec.windowMillis { values["window"] = .millis(window) }
            return values
        })

    /// `standbyBucket`: one bucket for the devices picked; none given, the group's own.
    private static let standbyBucketDescription = ActionDescription(
        name: .standbyBucket,
        summary:
            "Android puts the app in an App Standby bucket: once a kill has taken its foreground service down, "
            + "WorkManager's restart (60 s) is deferred by a seeded draw up to the bucket's limit (workingSet 2 h, "
            + "frequent 8 h, rare and restricted 24 h; active none); iOS has no buckets; with no params, the "
            + "group's own again",
        parameters: [
            ActionParameter(
                name: "bucket", kind: .choice(StandbyBucket.words), required: false,
                summary: "the bucket (default: the group's own standbyBucket, else active)", example: #""rare""#)
        ], ending: .undoneBy(.standbyBucket(nil)),
        make: { values in
            guard case .choice(let text)? = values["bucket"] else { return .standbyBucket(nil) }
            return StandbyBucket(rawValue: text).map { .standbyBucket($0) }
        },
        values: { action in
            guard case .standbyBucket(let bucket?) = action else { return [:] }
            return ["bucket": .choice(bucket.rawValue)]
        })

    private static let relaunchAfter = ActionParameter(
        name: "relaunchAfterSeconds", kind: .seconds(relaunchAfterRange), required: false,
        summary: "the relaunch delay (a timeline fault's `for` gives it too); see the platform rules",
        example: "30")

    /// Every action, described once: what it does, its parameters with their ranges, how a `for`
    /// ends it, and how its case is made from their values and read back.
    public static let catalog: [Name: ActionDescription] = Dictionary(
        uniqueKeysWithValues: [
            ActionDescription(
                .revokePermission, summary: "the user revokes location permission",
                ending: .undoneBy(.grantPermission)),
            ActionDescription(.grantPermission, summary: "the user grants location permission again", ending: .never),
            ActionDescription(
                .locationServicesOff, summary: "system location services go off",
                ending: .undoneBy(.locationServicesOn)),
            ActionDescription(.locationServicesOn, summary: "system location services come back on", ending: .never),
            ActionDescription(
                .osError, summary: "a transient OS error: tracking pauses (unknown), then recovers",
                ending: .recovers),
            ActionDescription(
                .background, summary: "the app leaves the foreground", ending: .undoneBy(.foreground)),
            ActionDescription(.foreground, summary: "the app returns to the foreground", ending: .never),
            ActionDescription(
                name: .kill,
                summary:
                    "the app's process dies; Android's WorkManager relaunches it after the delay (default 60 s); "
                    + "on iOS a 500 m move relaunches it, or the user opens it after the delay if one is given",
                parameters: [relaunchAfter], ending: .relaunches,
                make: { .kill(relaunchAfterMillis: $0["relaunchAfterSeconds"]?.millis) },
                values: { action in
                    guard case .kill(let after?) = action else { return [:] }
                    return ["relaunchAfterSeconds": .millis(after)]
                }),
            ActionDescription(
                name: .reboot,
                summary:
                    "the phone is down for the delay (default 60 s), then boots: Android's boot receiver relaunches "
                    + "the app, iOS waits for a 500 m move from where the phone booted",
                parameters: [relaunchAfter], ending: .relaunches,
                make: { .reboot(relaunchAfterMillis: $0["relaunchAfterSeconds"]?.millis) },
                values: { action in
                    guard case .reboot(let after?) = action else { return [:] }
                    return ["relaunchAfterSeconds": .millis(after)]
                }),
            ActionDescription(
                .networkOffline,
                summary:
                    "the phone loses its network: a transfer out at that instant ends for its device as offline "
                    + "(rows kept, no failure counted), nothing is sent until the network is back, and what waits "
                    + "goes then",
                ending: .undoneBy(.networkOnline)),
            ActionDescription(.networkOnline, summary: "the phone regains its network", ending: .never),
            ActionDescription(
                name: .captivePortal,
                summary:
                    "the phone's network sits behind a captive portal that answers its requests instead of the server: "
                    + "html200 (a 200 login page: the SDK deletes the batch's rows, lost to the server, counted as "
                    + "portal_acknowledged) or redirect302 (a 3xx: the SDK keeps the rows and backs off); off ends it",
                parameters: [
                    ActionParameter(
                        name: "answer", kind: .choice(PortalAnswer.allCases.map(\.rawValue)), required: false,
                        summary: "what the portal answers (default html200)", example: #""html200""#)
                ], ending: .undoneBy(.captivePortal(.off)),
                make: { values in
                    guard case .choice(let text)? = values["answer"] else { return .captivePortal(.html200) }
                    return PortalAnswer(rawValue: text).map { .captivePortal($0) }
                },
                values: { action in
                    guard case .captivePortal(let answer) = action else { return [:] }
                    return ["answer": .choice(answer.rawValue)]
                }),
            ActionDescription(
                name: .latency, summary: "each request of the device is delayed",
                parameters: [
                    ActionParameter(
                        name: "ms", kind: .millis(latencyRange), required: true,
                        summary: "the delay added to each request", example: "800")
                ], ending: .undoneBy(.latency(millis: 0)),
                make: { values in values["ms"]?.millis.map { .latency(millis: $0) } },
                values: { action in
                    guard case .latency(let millis) = action else { return [:] }
                    return ["ms": .millis(millis)]
                }),
            ActionDescription(
                name: .timeouts, summary: "a share of the device's requests time out",
                parameters: [
                    ActionParameter(
                        name: "fraction", kind: .number(timeoutFractionRange), required: true,
                        summary: "the share of requests that time out", example: "0.3")
                ], ending: .undoneBy(.timeouts(fraction: 0)),
                make: { values in
                    guard case .number(let fraction)? = values["fraction"] else { return nil }
                    return .timeouts(fraction: fraction)
                },
                values: { action in
                    guard case .timeouts(let fraction) = action else { return [:] }
                    return ["fraction": .number(fraction)]
                }),
            ActionDescription(.start, summary: "the SDK's start()", ending: .never),
            ActionDescription(.stop, summary: "the SDK's stop()", ending: .never),
            ActionDescription(.sync, summary: "the SDK's sync(): upload now", ending: .never),
            ActionDescription(
                name: .configure, summary: "the SDK's configure(): a new configuration",
                parameters: [
                    ActionParameter(
                        name: "config", kind: .config, required: true, summary: "a config block, as a group's",
                        example: #"{"stationaryRadiusMeters": 50}"#)
                ], ending: .never,
                make: { values in
                    guard case .config(let config)? = values["config"] else { return nil }
                    return .configure(config)
                },
                values: { action in
                    guard case .configure(let config) = action else { return [:] }
                    return ["config": .config(config)]
                }),
            ActionDescription(
                name: .setExtras, summary: "the SDK's setExtras()",
                parameters: [
                    ActionParameter(
                        name: "extras", kind: .stringMap, required: true,
                        summary: "the new extras; `{index}`, `{group}` and `{id}` are filled per device",
                        example: #"{"driver": "{index}"}"#)
                ], ending: .never,
                make: { values in
                    guard case .stringMap(let extras)? = values["extras"] else { return nil }
                    return .setExtras(extras)
                },
                values: { action in
                    guard case .setExtras(let extras) = action else { return [:] }
                    return ["extras": .stringMap(extras)]
                }),
            ActionDescription(
                name: .addGeofences, summary: "the SDK's addGeofences()",
                parameters: [
                    ActionParameter(
                        name: "geofences", kind: .geofences, required: true,
                        summary: "geofences, as a group's `geofences`",
                        example: #"[{"id": "depot", "latitude": 51.5, "longitude": -0.12, "radius": 200}]"#)
                ], ending: .never,
                make: { values in
                    guard case .geofences(let geofences)? = values["geofences"] else { return nil }
                    return .addGeofences(geofences)
                },
                values: { action in
                    guard case .addGeofences(let geofences) = action else { return [:] }
                    return ["geofences": .geofences(geofences)]
                }),
            ActionDescription(
                name: .removeGeofences, summary: "the SDK's removeGeofences()",
                parameters: [
                    ActionParameter(
                        name: "ids", kind: .strings, required: true, summary: "the ids of the geofences to remove",
                        example: #"["depot"]"#)
                ], ending: .never,
                make: { values in
                    guard case .strings(let ids)? = values["ids"] else { return nil }
                    return .removeGeofences(ids: ids)
                },
                values: { action in
                    guard case .removeGeofences(let ids) = action else { return [:] }
                    return ["ids": .strings(ids)]
                }),
            ActionDescription(
                name: .getCurrentLocation,
                summary:
                    "the SDK's getCurrentLocation(): the next OS fix within the timeout, tagged manual, neither stored "
                    + "nor uploaded; the answer (a fix, timedOut, or unavailable with its reason) is counted in the "
                    + "fleet's currentLocation figures and shown in the device's detail",
                parameters: [
                    ActionParameter(
                        name: "timeoutSeconds", kind: .seconds(currentLocationTimeoutRange), required: false,
                        summary: "how long to wait for a fix (default 15, the SDK's)", example: "15"),
                    ActionParameter(
                        name: "accuracy", kind: .choice(AccuracyRequest.allCases.map(\.rawValue)), required: false,
                        summary: "the accuracy asked of the OS provider (default high, the SDK's)",
                        example: #""high""#),
                ], ending: .never,
                make: { values in
                    var accuracy = AccuracyRequest.high
                    if case .choice(let text)? = values["accuracy"] {
                        guard let given = AccuracyRequest(rawValue: text) else { return nil }
                        accuracy = given
                    }
                    return .getCurrentLocation(
                        timeoutMillis: values["timeoutSeconds"]?.millis ?? Device.currentLocationTimeoutMillis,
                        accuracy: accuracy)
                },
                values: { action in
                    guard case .getCurrentLocation(let timeout, let accuracy) = action else { return [:] }
                    return ["timeoutSeconds": .millis(timeout), "accuracy": .choice(accuracy.rawValue)]
                }),
            ActionDescription(
                name: .deleteLocations,
                summary:
                    "the SDK's deleteLocations(): stored fixes at or before the instant are deleted (all without one); "
                    + "one not yet uploaded never reaches the server, and the fix accounting counts them `deleted`",
                parameters: [
                    ActionParameter(
                        name: "before", kind: .instant, required: false,
                        summary: "an RFC 3339 instant; absent: every stored fix",
                        example: #""2026-06-15T08:00:00Z""#)
                ], ending: .never,
                make: { values in
                    guard case .instant(let before)? = values["before"] else { return .deleteLocations(before: nil) }
                    return .deleteLocations(before: before)
                },
                values: { action in
                    guard case .deleteLocations(let before?) = action else { return [:] }
                    return ["before": .instant(before)]
                }),
            ActionDescription(
                .shutdown,
                summary:
                    "the SDK's shutdown(): the in-memory state holder goes (the device is idle, its timers and "
                    + "tracking stop); the store, with its pending fixes, stays",
                ending: .never),
            ActionDescription(
                name: .gpsJump,
                summary:
                    "the OS provider reports fixes far from the truth (a teleport) until the jump lapses, then the "
                    + "truth again: the SDK's 300 m/s check labels a jumped fix implausible_speed",
                parameters: [
                    ActionParameter(
                        name: "meters", kind: .number(gpsJumpMetersRange), required: false,
                        summary: "how far the fixes jump (default 50000)", example: "50000"),
                    ActionParameter(
                        name: "bearing", kind: .number(bearingRange), required: false,
                        summary: "which way, clockwise from north (default: drawn per device from its seed)",
                        example: "90"),
                    ActionParameter(
                        name: "forSeconds", kind: .seconds(gpsJumpForRange), required: false,
                        summary: "how long the jump lasts (default 60; a timeline fault's `for` gives it too)",
                        example: "60"),
                ], ending: .lapses,
                make: { values in
                    var meters = gpsJumpDefaultMeters
                    if case .number(let given)? = values["meters"] { meters = given }
                    var bearing: Double?
                    if case .number(let given)? = values["bearing"] { bearing = given }
                    return .gpsJump(meters: meters, bearing: bearing, forMillis: values["forSeconds"]?.millis)
                },
                values: { action in
                    guard case .gpsJump(let meters, let bearing, let length) = action else { return [:] }
                    // Only what was given: without a bearing each device draws its own.
                    return [
                        "meters": .number(meters), "bearing": bearing.map { .number($0) },
                        "forSeconds": length.map { .millis($0) },
                    ]
                    .compactMapValues { $0 }
                }),
            networkProfileDescription,
            flappingDescription,
            oemKillsDescription,
            dozeDescription,
            standbyBucketDescription,
            ActionDescription(
                name: .clockJump,
                summary:
                    "the phone's clock jumps forwards (or back, negative) at once; what the SDK stamps from then on "
                    + "(fix times, sent_at, batch ids, token expiry) moves with it, its timers (elapsed time) do not; "
                    + "the group's deviceClock.ntp sets it right at its next sync",
                parameters: [
                    ActionParameter(
                        name: "seconds", kind: .seconds(DeviceClockSpec.jumpRange), required: true,
                        summary: "how far the clock jumps (negative: back)", example: "-600")
                ], ending: .never,
                make: { values in values["seconds"]?.millis.map { .clockJump(millis: $0) } },
                values: { action in
                    guard case .clockJump(let millis) = action else { return [:] }
                    return ["seconds": .millis(millis)]
                }),
            ActionDescription(
                name: .clockOffset,
                summary:
                    "the phone's clock is set this far off true time (0: true time), drifting on from there at its "
                    + "own rate; the group's deviceClock.ntp sets it right at its next sync",
                parameters: [
                    ActionParameter(
                        name: "seconds", kind: .seconds(DeviceClockSpec.setOffsetRange), required: true,
                        summary: "the clock's offset from true time (negative: behind)", example: "300")
                ], ending: .undoneBy(.clockOffset(millis: 0)),
                make: { values in values["seconds"]?.millis.map { .clockOffset(millis: $0) } },
                values: { action in
                    guard case .clockOffset(let millis) = action else { return [:] }
                    return ["seconds": .millis(millis)]
                }),
            ActionDescription(
                name: .reinstall,
                summary:
                    "the user uninstalls the app and installs it again: the process dies, the store is wiped (its "
                    + "pending fixes are never sent and count as uninstalled), and the new install, with a new "
                    + "install id and an empty store, does nothing until the user opens it",
                parameters: [
                    ActionParameter(
                        name: "openAfterSeconds", kind: .seconds(openAfterRange), required: false,
                        summary: "when the user opens the new install (default 0: at once)", example: "600")
                ], ending: .never,
                make: { .reinstall(openAfterMillis: $0["openAfterSeconds"]?.millis) },
                values: { action in
                    guard case .reinstall(let after?) = action else { return [:] }
                    return ["openAfterSeconds": .millis(after)]
                }),
            ActionDescription(
                name: .upgrade,
                summary:
                    "the app is updated to another SDK version: the update kills the process and relaunches it "
                    + "with the new sdk_version; pending fixes and a batch held for a retry stay (the retry keeps "
                    + "its batch_id)",
                parameters: [
                    ActionParameter(
                        name: "sdkVersion", kind: .version, required: true,
                        summary: "the SDK version its uploads report from the relaunch on", example: #""0.2.0""#)
                ], ending: .never,
                make: { values in
                    guard case .version(let version)? = values["sdkVersion"] else { return nil }
                    return .upgrade(sdkVersion: version)
                },
                values: { action in
                    guard case .upgrade(let version) = action else { return [:] }
                    return ["sdkVersion": .version(version)]
                }),
        ].map { ($0.name, $0) })

    /// The action that ends this one when a timeline fault's `for` runs out; nil for those
    /// that end by themselves (`osError` recovers, `kill` and `reboot` relaunch, `gpsJump` lapses).
    public var undoing: FleetAction? { name.details.ending.undoing }

    /// Whether applying it begins a fault, which the timeline and the admin API list, time and
    /// drain alike: it lasts (a `for` ends it, see `ActionDescription.Ending`) and is not itself
    /// the opposite that ends one (`latency` 0, `timeouts` 0). Recoveries (`networkOnline`,
    /// `grantPermission`, …) and controls (`sync`, `configure`, …) do not.
    public var beginsFault: Bool { name.details.lasts && undoing != self }

    /// A fault its opposite action ends (`networkOffline`, `latency` 500, …): on until its `for`
    /// or the API ends it, and the backlog's drain measured from that end.
    public var endsByOpposite: Bool { beginsFault && undoing != nil }
}
