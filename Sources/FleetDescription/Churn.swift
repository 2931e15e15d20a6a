import BeekonDevice

/// A group's `churn:`: its devices' apps are reinstalled now and then (each device on its own
/// seeded Poisson clock) and may be upgraded to another SDK version, spread over a window.
public struct Churn: Sendable, Hashable {
    /// Reinstalls per device per virtual day: each device's are a Poisson process at this rate,
    /// drawn from its own stream. 0 reinstalls none.
    public var reinstallsPerDay: Double
    /// The app update every device of the group takes, if any.
    public var upgrade: Upgrade?

    public init(reinstallsPerDay: Double = 0, upgrade: Upgrade? = nil) {
        self.reinstallsPerDay = reinstallsPerDay
        self.upgrade = upgrade
    }

    /// `churn.upgrade`: devices take SDK `sdkVersion` at instants spread uniformly (a seeded draw
    /// per device) over `overMillis` from `atMillis` after the run's start.
    public struct Upgrade: Sendable, Hashable {
        public var sdkVersion: String
        public var atMillis: Int64
        public var overMillis: Int64

        public init(sdkVersion: String, atMillis: Int64, overMillis: Int64) {
            self.sdkVersion = sdkVersion
            self.atMillis = atMillis
            self.overMillis = overMillis
        }
    }

    /// `churn.reinstallsPerDay`: up to one an hour per device.
    public static let reinstallsPerDayRange = NumberRange(0...24, unit: "per day")
}
