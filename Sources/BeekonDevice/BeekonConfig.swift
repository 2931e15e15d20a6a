/// The SDK configuration a device is given with `configure()`: gate preset and overrides,
/// stationary behaviour, activity detection, and sync (absent means local-only).
public struct BeekonConfig: Sendable, Hashable, Codable {
    /// Sets the gate and the OS accuracy request (spec §3).
    public var preset: Preset
    /// Overrides the preset's minimum time between admitted fixes; 0 disables that side.
    public var minTimeBetweenLocationsSeconds: Double?
    /// Overrides the preset's minimum distance between admitted fixes; 0 disables that side.
    public var minDistanceBetweenLocationsMeters: Double?
    /// What tracking does while the device is stationary.
    public var whenStationary: StationaryMode
    /// The radius that counts as staying put, clamped to 5…1000 m.
    public var stationaryRadiusMeters: Double {
        get { storedStationaryRadius }
        set { storedStationaryRadius = min(max(newValue, 5), 1000) }
    }
    /// Whether fixes carry an `activity`.
    public var detectActivity: Bool
    /// Upload settings; nil means local-only mode: nothing ever leaves the device.
    public var sync: SyncConfig?

    /// `minTimeBetweenLocationsSeconds`: 0 (off) to a day.
    public static let minTimeRange = NumberRange(0...86_400, unit: "s")
    /// `minDistanceBetweenLocationsMeters`: 0 (off) to 100 km.
    public static let minDistanceRange = NumberRange(0...100_000, unit: "m")
    /// `stationaryRadiusMeters`: what the SDK clamps to (spec §2), refused outside rather than clamped.
    public static let stationaryRadiusRange = NumberRange(5...1000, unit: "m")

    private var storedStationaryRadius: Double

    private enum CodingKeys: String, CodingKey {
        case preset, minTimeBetweenLocationsSeconds, minDistanceBetweenLocationsMeters
        case whenStationary, detectActivity, sync
        case storedStationaryRadius = "stationaryRadiusMeters"
    }

    /// A configuration; every argument has the SDK's default.
    public init(
        preset: Preset = .balanced, minTimeBetweenLocationsSeconds: Double? = nil,
        minDistanceBetweenLocationsMeters: Double? = nil, whenStationary: StationaryMode = .pause,
        stationaryRadiusMeters: Double = 100, detectActivity: Bool = false, sync: SyncConfig? = nil
    ) {
        self.preset = preset
        self.minTimeBetweenLocationsSeconds = minTimeBetweenLocationsSeconds
        self.minDistanceBetweenLocationsMeters = minDistanceBetweenLocationsMeters
        self.whenStationary = whenStationary
        self.storedStationaryRadius = min(max(stationaryRadiusMeters, 5), 1000)
        self.detectActivity = detectActivity
        self.sync = sync
    }

    /// Whether the device is in local-only mode (no sync block).
    public var isLocalOnly: Bool { sync == nil }
}
