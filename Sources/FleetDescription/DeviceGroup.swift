import BeekonDevice
import FleetRoutes

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
    /// The network its devices upload over (`network:`); nil: not modelled, the link adds nothing.
    public var network: NetworkProfile? = nil
    /// How its phones' networks drop and hand over (`flapping:`); nil: they stay up.
    public var flapping: Flapping? = nil
    /// How often its Android phones' battery managers kill the app (`oemKills:`); nil: never.
    public var oemKills: OEMKills? = nil
    /// Whether its Android phones doze when still (`doze:`); nil: never.
    public var doze: Doze? = nil
    /// The App Standby bucket of its Android phones' app (`standbyBucket:`), which defers
    /// WorkManager's restart after a kill.
    public var standbyBucket = StandbyBucket.active
    /// The phones' clocks (`deviceClock:`); nil: every phone's clock is true time.
    public var deviceClock: DeviceClockSpec? = nil
    /// Reinstalls and an app upgrade (`churn:`); nil: none.
    public var churn: Churn? = nil
    /// The group's own day of load (`daily:`), over the fleet's; nil follows the fleet's, if any.
    /// Never with `stages` (the reader refuses both): with it the group starts with the share of
    /// `count` its curve wants then.
    public var daily: DailyCurve? = nil
    /// New installs arriving at a rate (`arrivals:`); nil: none. A group with them follows no
    /// stages or day of load (the reader refuses its own; the fleet's pass it over).
    public var arrivals: Arrivals? = nil

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
            && lhs.provider == rhs.provider && lhs.network == rhs.network && lhs.flapping == rhs.flapping
            && lhs.oemKills == rhs.oemKills && lhs.doze == rhs.doze && lhs.standbyBucket == rhs.standbyBucket
            && lhs.deviceClock == rhs.deviceClock
            && lhs.churn == rhs.churn && lhs.daily == rhs.daily && lhs.arrivals == rhs.arrivals
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(count)
        hasher.combine(routes)
        hasher.combine(config)
    }
}
