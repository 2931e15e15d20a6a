import FleetDescription

/// The world a device's phone is in, as the admin API shows it: what its group's `network:`,
/// `flapping:`, `doze:`, `standbyBucket:`, `oemKills:` and `deviceClock:` and the actions since
/// have made of it.
public struct DeviceWorld: Sendable, Equatable {
    /// Its network's numbers (a profile, with overrides); nil: not modelled.
    public var network: NetworkProfile? = nil
    /// What a `latency` fault adds to each request, virtual ms.
    public var extraLatencyMillis: Int64 = 0
    /// The share of requests a `timeouts` fault times out.
    public var timeoutFraction = 0.0
    /// The captive portal its network sits behind; nil: none.
    public var captivePortal: FleetAction.PortalAnswer? = nil
    /// How its network flaps; nil: it does not.
    public var flapping: Flapping? = nil
    /// Whether its flapping has the network up now (always, without flapping).
    public var flapUp = true
    /// Where its Doze is; nil: it does not doze (iOS, or no `doze:`).
    public var doze: DozePhase? = nil
    /// Its app's App Standby bucket.
    public var standbyBucket = StandbyBucket.active
    /// Its battery manager's kills per virtual day (0: none).
    public var oemKillsPerDay = 0.0
    /// Its clock minus true time, ms, as of its last act; nil: true time.
    public var clockOffsetMillis: Int64? = nil

    /// A phone none of these touch: no network modelled, no faults, true time.
    public static let untouched = DeviceWorld()

    /// Where a phone's deep Doze is (`DozeCycle`'s phases, by name).
    public enum DozePhase: String, Sendable, CaseIterable {
        /// Moving, or not yet noticed still.
        case active
        /// Still, counting towards idle.
        case still
        /// Idle: apps without the network until a maintenance window.
        case idle
        /// In a maintenance window: the network back for its length.
        case window
    }
}

extension DozeCycle {
    /// The phase, by name.
    var phaseName: DeviceWorld.DozePhase {
        switch phase {
        case .active: .active
        case .still: .still
        case .idle: .idle
        case .window: .window
        }
    }
}
