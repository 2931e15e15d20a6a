/// One position as the OS provider reported it, with the metadata Beekon derives for it.
///
/// Beekon never modifies a location: the only change is value-level normalisation in the
/// initialiser, which turns values that cannot be meaningful into nil and never invents one.
public struct Location: Sendable, Hashable {
    /// Stable per-row identifier (UUIDv7).
    public var id: UUIDv7
    /// Degrees (WGS-84); always finite.
    public let latitude: Double
    /// Degrees (WGS-84); always finite.
    public let longitude: Double
    /// The OS provider's fix time in Unix milliseconds, not the time Beekon received it.
    public var timestamp: Int64
    /// Metres, horizontal 1σ; nil when the OS did not report it.
    public let accuracy: Double?
    /// Metres per second; nil when the OS did not report it.
    public let speed: Double?
    /// Degrees in [0, 360) clockwise from true north; nil when unreported.
    public let bearing: Double?
    /// Metres above the WGS-84 ellipsoid; nil when unreported.
    public let altitude: Double?
    /// nil means the fix is good; otherwise why it is suspect (informational only).
    public var quality: Quality?
    /// Why the fix was captured.
    public var trigger: Trigger
    /// Whether the device was moving when the fix was captured.
    public var motion: Motion
    /// The physical activity, only when activity detection is on.
    public var activity: Activity?
    /// Whether the OS flagged the fix as mock or simulated.
    public var isMock: Bool

    /// Builds a location from what the OS reported, normalising invalid values.
    ///
    /// Returns nil when latitude or longitude is not finite: such a fix is rejected. NaN,
    /// infinite or negative accuracy and speed, non-finite altitude and a bearing outside
    /// [0, 360) become nil; 0 stays 0.
    public init?(
        id: UUIDv7, latitude: Double, longitude: Double, timestamp: Int64,
        accuracy: Double? = nil, speed: Double? = nil, bearing: Double? = nil,
        altitude: Double? = nil, quality: Quality? = nil, trigger: Trigger = .interval,
        motion: Motion = .unknown, activity: Activity? = nil, isMock: Bool = false
    ) {
        guard latitude.isFinite, longitude.isFinite else { return nil }
        self.init(
            unvalidatedID: id, latitude: latitude, longitude: longitude, timestamp: timestamp,
            accuracy: accuracy.flatMap(Self.nonNegativeMeasure),
            speed: speed.flatMap(Self.nonNegativeMeasure),
            bearing: bearing.flatMap { $0 >= 0 && $0 < 360 ? $0 : nil },
            altitude: altitude.flatMap { $0.isFinite ? $0 : nil },
            quality: quality, trigger: trigger, motion: motion, activity: activity,
            isMock: isMock)
    }

    /// Memberwise, with no normalisation: for rows that are already normalised, and for tests of
    /// the defences further down the line.
    init(
        unvalidatedID id: UUIDv7, latitude: Double, longitude: Double, timestamp: Int64,
        accuracy: Double?, speed: Double?, bearing: Double?, altitude: Double?,
        quality: Quality?, trigger: Trigger, motion: Motion, activity: Activity?, isMock: Bool
    ) {
        self.id = id
        self.latitude = latitude
        self.longitude = longitude
        self.timestamp = timestamp
        self.accuracy = accuracy
        self.speed = speed
        self.bearing = bearing
        self.altitude = altitude
        self.quality = quality
        self.trigger = trigger
        self.motion = motion
        self.activity = activity
        self.isMock = isMock
    }

    private static func nonNegativeMeasure(_ value: Double) -> Double? {
        value.isFinite && value >= 0 ? value : nil
    }
}
