import BeekonDevice
import FleetRoutes

/// A fleet file: what devices to emulate, on which routes, with which SDK configuration, and
/// the faults to inject over time. Read from YAML by `FleetFile.load(path:)`.
public struct FleetFile: Sendable, Hashable {
    /// The warps a fleet accepts, from every surface (`--warp`, `clock.warp`, `PATCH
    /// /api/v1/fleet`): a hundredth of real time up to 10 000× (a week in a minute). Above it, the
    /// 100 ms lag bound would let a turn's backlog reach days of virtual time.
    public static let warpRange = NumberRange(0.01...10_000)

    /// The fleet's name, for reports.
    public var name: String
    /// The run seed: every random choice of the run derives from it.
    public var seed: UInt64
    /// Where virtual time starts, and how fast it runs.
    public var clock: ClockSpec
    /// The default ingest URL for groups whose sync block names none.
    public var ingest: String?
    /// How long the run lasts on the virtual clock, ms after `clock.start` (`duration:`, which
    /// `run --for` overrides); nil runs until stopped.
    public var durationMillis: Int64?

    /// Whether some group uploads without naming a URL while the file names no `ingest`: the
    /// run must then be given one (`--ingest`) or start a receiver of its own.
    public var needsIngestURL: Bool {
        ingest == nil && groups.contains { $0.config.sync?.url.isEmpty == true }
    }
    /// Where a group with `config` uploads: its sync block's URL; where that is empty, `given`
    /// (`--ingest`) or else the file's `ingest`; where it repeats the file's `ingest`, `given`
    /// over it. Nil for a group that does not upload; empty when no URL is known.
    public func ingestURL(of config: BeekonConfig, given: String?) -> String? {
        guard let url = config.sync?.url else { return nil }
        if url.isEmpty { return given ?? ingest ?? "" }
        if let given, ingest != nil, url == ingest { return given }
        return url
    }
    /// The device groups, in file order.
    public var groups: [DeviceGroup]
    /// The fault timeline, in file order.
    public var faults: [FaultEntry]
    /// The route files the reader read while checking them (by path as written), so a run
    /// reads each once; empty when the file was read without its folder.
    public var routes: [String: Route] = [:]
    /// What the run must meet to pass (`thresholds:`), in file order; empty when the file gives none.
    public var thresholds: [Threshold] = []
    /// The load over time for the whole fleet (`stages:`), shared over the groups that have no
    /// stages of their own (see `groupStages`); empty without.
    public var stages: [Stage] = []

    /// `seed` (`--seed`, a selector's `seed`): whole numbers of up to 15 digits, exact in every
    /// JSON reader (below 2^53).
    public static let seedRange = NumberRange.integer(0...999_999_999_999_999)

    /// The virtual clock's start, warp, and how long an answer takes on it.
    public struct ClockSpec: Sendable, Hashable {
        /// Unix ms; nil means the wall-clock time when the run starts.
        public var start: Int64?
        /// A rate of the wall clock, or `max`.
        public var warp: Warp
        /// How long an answer takes on the virtual clock (`clock.timing`, `run --timing`).
        public var timing: TimingChoice

        /// `clock.deterministic: true`, the same as `timing: modelled`.
        public var deterministic: Bool {
            get { timing == .modelled }
            set { timing = newValue ? .modelled : .auto }
        }

        /// A clock spec; defaults start now, in real time, with the timing chosen by the warp.
        public init(start: Int64? = nil, warp: Warp = .rate(1), deterministic: Bool = false) {
            self.start = start
            self.warp = warp
            self.timing = deterministic ? .modelled : .auto
        }
    }
}

/// A group of identical devices (but for their index, routes and seeds).
public struct DeviceGroup: Sendable, Hashable {
    /// Unique within the file; used by selectors and the `{group}` template.
    public var name: String
    /// How many devices.
    public var count: Int
    /// The platforms with their weights (a mix); one entry for a single platform.
    public var platforms: [(platform: Platform, weight: Double)]
    /// Phone models, assigned round-robin; empty means none (omitted from payloads).
    public var models: [String]
    /// The emulated SDK versions per platform, assigned round-robin (`["0.1.1"]` by default).
    public var sdkVersions: PlatformValues<String>
    /// The OS releases per platform, assigned round-robin; a platform given none draws from
    /// `OSVersions`' table of releases in use.
    public var osVersions: PlatformValues<OSVersion>
    /// Route files (paths as written, relative to the fleet file), assigned round-robin.
    public var routes: [String]
    /// How fast the routes are travelled.
    public var pace: PaceSpec
    /// Whether a device starts its route over at the end.
    public var loops: Bool
    /// Stop every so many metres for so many seconds (speed-paced routes only).
    public var dwell: (everyMeters: Double, seconds: Double)?
    /// Where along the route each device sets off.
    public var startOffset: StartOffset
    /// When the first device of the group starts, ms after the clock's start.
    public var startAfterMillis: Int64
    /// Devices start spread evenly (and seeded) over this many ms after `startAfterMillis`.
    public var spreadMillis: Int64
    /// Whether devices call `start()` when they are spawned.
    public var autoStart: Bool
    /// The SDK configuration each device is given.
    public var config: BeekonConfig
    /// Extras, with `{index}`, `{group}` and `{id}` templates filled per device.
    public var extras: StringMap
    /// Geofences each device watches from the start.
    public var geofences: [Geofence]
    /// The emulated OS provider's behaviour.
    public var provider: ProviderProfile
    /// The group's own load over time (`stages:`); nil follows its share of the fleet's, if any.
    /// With stages the group starts with no device, and `count` only weighs its share.
    public var stages: [Stage]? = nil

    /// `count`: devices in a group.
    public static let countRange = NumberRange.integer(1...100_000, unit: "devices")
    /// `speedFactor`: how much faster than the route's times or the named pace.
    public static let speedFactorRange = NumberRange(0.01...1000)
    /// `pace` given as a speed: a crawl to an airliner.
    public static let speedRange = NumberRange(0.01...300, unit: "m/s")
    /// `dwell.every`: metres between stops.
    public static let dwellEveryRange = NumberRange(1...1_000_000, unit: "m")
    /// `startOffset` given as a fraction of the route.
    public static let startOffsetRange = NumberRange(0...1)
    /// A share in a `platform` mix.
    public static let platformWeightRange = NumberRange(0...1_000_000)

    /// How fast a route is travelled.
    public enum PaceSpec: Sendable, Hashable {
        /// The route's own times, scaled.
        case routeTimes(factor: Double)
        /// A named pace, scaled.
        case pace(Pace, factor: Double)
        /// A speed in m/s.
        case metersPerSecond(Double)
    }

    /// Where a device sets off along its route.
    public enum StartOffset: Sendable, Hashable {
        /// At this fraction of the route for every device.
        case fraction(Double)
        /// A seeded random fraction per device.
        case random
    }

    public static func == (lhs: DeviceGroup, rhs: DeviceGroup) -> Bool {
        lhs.name == rhs.name && lhs.count == rhs.count
            && lhs.platforms.elementsEqual(rhs.platforms) { $0.platform == $1.platform && $0.weight == $1.weight }
            && lhs.models == rhs.models && lhs.sdkVersions == rhs.sdkVersions
            && lhs.osVersions == rhs.osVersions && lhs.routes == rhs.routes
            && lhs.pace == rhs.pace && lhs.loops == rhs.loops
            && lhs.dwell?.everyMeters == rhs.dwell?.everyMeters && lhs.dwell?.seconds == rhs.dwell?.seconds
            && lhs.startOffset == rhs.startOffset && lhs.startAfterMillis == rhs.startAfterMillis
            && lhs.spreadMillis == rhs.spreadMillis && lhs.autoStart == rhs.autoStart
            && lhs.config == rhs.config && lhs.extras == rhs.extras && lhs.geofences == rhs.geofences
            && lhs.provider == rhs.provider
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(count)
        hasher.combine(routes)
        hasher.combine(config)
    }
}

/// One entry of the fault timeline.
public struct FaultEntry: Sendable, Hashable {
    /// When, ms after the clock's start.
    public var atMillis: Int64
    /// How long, for actions that last (see `ActionDescription.Ending`): the opposite action
    /// runs after it; for `kill` and `reboot`, the delay `ProcessOutage` reads per platform.
    public var forMillis: Int64?
    /// Which devices.
    public var selector: FaultSelector
    /// What happens to them, with its parameters.
    public var action: FleetAction
    /// The line in the fleet file, for reports (0 for a fault the admin API began).
    public var line: Int

    package init(atMillis: Int64, forMillis: Int64?, selector: FaultSelector, action: FleetAction, line: Int) {
        self.atMillis = atMillis
        self.forMillis = forMillis
        self.selector = selector
        self.action = action
        self.line = line
    }
}

/// Which devices a fault or an admin action applies to.
public enum FaultSelector: Sendable, Hashable {
    /// Every device.
    case all
    /// The devices of one group.
    case group(String)
    /// A seeded fraction of all devices; without a seed, the fault's place in the timeline (or
    /// the admin action's number) seeds the choice.
    case fraction(Double, seed: UInt64? = nil)
    /// These devices.
    case ids([String])
    /// The devices whose state text is this (`tracking`, `paused(permissionRevoked)`, `dead`),
    /// or starts with it when it ends in `*` (`paused*`).
    case state(String)

    /// `fraction`: a share of the devices.
    public static let fractionRange = NumberRange(0...1)
}

extension FleetFile {
    /// `run --devices`: how many devices a run may be scaled to, over all groups.
    public static let scaledDevicesRange = NumberRange.integer(1...1_000_000, unit: "devices")

    /// The same fleet with `devices` devices in all, shared over its groups in proportion to
    /// their counts (largest remainders first, ties to the earlier group), each group keeping
    /// at least one device; nil, with why, when there are fewer devices than groups.
    public func scaled(toDevices devices: Int) -> Result<FleetFile, ScaleProblem> {
        guard devices >= groups.count else {
            return .failure(ScaleProblem(devices: devices, groups: groups.count))
        }
        // Each group's exact share, floored (at least 1); what is left goes by largest remainder.
        let counts = Self.shares(of: devices, weights: groups.map(\.count), minimum: 1)
        var scaled = self
        for (group, count) in counts.enumerated() { scaled.groups[group].count = count }
        return .success(scaled)
    }

    /// Why a fleet cannot be scaled to a number of devices.
    public struct ScaleProblem: Error, Sendable, CustomStringConvertible {
        public var devices: Int
        public var groups: Int

        public var description: String {
            "--devices \(devices) is fewer than the fleet file's \(groups) groups; expected at least \(groups) "
                + "(one device a group)"
        }
    }
}

/// Values a group gives its devices per platform (`sdkVersion`, `osVersion`), assigned
/// round-robin: each platform's devices of the group in the order they are made.
public struct PlatformValues<Value: Sendable & Hashable>: Sendable, Hashable {
    public var ios: [Value]
    public var android: [Value]

    /// The same values for both platforms (none: each takes its default).
    public init(_ both: [Value] = []) {
        ios = both
        android = both
    }

    public init(ios: [Value], android: [Value]) {
        self.ios = ios
        self.android = android
    }

    public subscript(platform: Platform) -> [Value] {
        switch platform {
        case .ios: ios
        case .android: android
        }
    }

    /// Replaces `platform`'s values.
    public mutating func set(_ values: [Value], for platform: Platform) {
        switch platform {
        case .ios: ios = values
        case .android: android = values
        }
    }

    /// The value of the `index`th device of `platform`: the platform's list round-robin, else
    /// `defaults`'.
    public func value(for platform: Platform, index: Int, defaults: [Value]) -> Value {
        let choices = self[platform].isEmpty ? defaults : self[platform]
        return choices[index % choices.count]
    }
}

/// How long an upload or token refresh takes on the virtual clock, as chosen (`run --timing`,
/// `clock.timing`); the engine resolves it into its `TransferTiming`.
public enum TimingChoice: String, Sendable, Hashable, CaseIterable {
    /// `as-answered` at warp 1, where real time is virtual time; `modelled` at every other warp
    /// (and whenever the warp leaves 1), so the same server gets the same verdict at any warp.
    case auto
    /// Every answer takes 100 virtual ms (plus injected latency), whatever the server's real time;
    /// virtual time waits for each real answer (`run --deterministic`).
    case modelled
    /// An answer takes its real time × the warp: what a phone would live through if the server
    /// were that much slower (at warp 60, a 500 ms answer is the SDK's 30 s timeout).
    case asAnswered = "as-answered"

    /// The words a reader takes, for messages.
    public static let words = allCases.map { "`\($0.rawValue)`" }.joined(separator: ", ")
}
