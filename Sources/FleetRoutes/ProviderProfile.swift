import BeekonDevice

/// How the emulated OS location provider behaves: fix cadence and accuracy per request, and
/// the realistic trouble (tunnels, urban canyons). Defaults are realistic; all configurable.
public struct ProviderProfile: Sendable, Hashable {
    /// Tunnels per hour of movement (gaps with no fix at all).
    public var gapsPerHour = 1.5
    /// How long a gap lasts, seconds.
    public var gapSeconds: ClosedRange<Double> = 20...120
    /// The share of fixes that land far from the truth while claiming the usual accuracy.
    public var outlierProbability = 0.01
    /// How far an outlier lands, in multiples of its reported accuracy.
    public var outlierFactor: ClosedRange<Double> = 3...8
    /// Whether the OS flags fixes as mock (a developer's mock-location app).
    public var isMock = false

    /// `gapsPerHour`: 0 to one a second.
    public static let gapsPerHourRange = NumberRange(0...3600, unit: "per hour")
    /// `outlierProbability`: a share of fixes.
    public static let outlierProbabilityRange = NumberRange(0...1)

    /// The realistic defaults.
    public init() {}

    /// No gaps, no outliers: for tests that want only the noise.
    public static let clean: ProviderProfile = {
        var profile = ProviderProfile()
        profile.gapsPerHour = 0
        profile.outlierProbability = 0
        return profile
    }()

    /// The OS fix cadence for an accuracy request: high 1 s, balanced 5 s, low 30 s.
    public static func cadenceMillis(_ request: AccuracyRequest) -> Int64 {
        switch request {
        case .high: 1000
        case .balanced: 5000
        case .low: 30_000
        }
    }

    /// The accuracy (metres, 1σ) an OS reports for a request: GPS 3–10 m, fused 10–65 m,
    /// cell/Wi-Fi 50–500 m.
    public static func accuracyRange(_ request: AccuracyRequest) -> ClosedRange<Double> {
        switch request {
        case .high: 3...10
        case .balanced: 10...65
        case .low: 50...500
        }
    }
}
