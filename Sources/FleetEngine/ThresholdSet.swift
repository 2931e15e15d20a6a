import FleetDescription

/// The thresholds a run is checked against: the command line's and the fleet file's, or, with
/// none given, the defaults, which fail the run only when it is strict.
public struct ThresholdSet: Sendable, Hashable, Codable {
    public var thresholds: [Threshold]
    /// Whether one that fails fails the run (exit 99).
    public var counted: Bool
    /// None was given: these are `Threshold.defaults`.
    public var areDefaults: Bool

    public init(given: [Threshold], strict: Bool) {
        areDefaults = given.isEmpty
        thresholds = given.isEmpty ? Threshold.defaults : given
        counted = !given.isEmpty || strict
    }

    /// Each checked against the run.
    public func check(_ metrics: FleetMetrics, groups: [String]) -> [ThresholdResult] {
        ThresholdResult.check(thresholds, against: metrics, groups: groups)
    }
}
