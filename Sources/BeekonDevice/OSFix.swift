/// One fix as the OS provider reports it, before Beekon normalises and labels it.
public struct OSFix: Sendable, Hashable {
    public var latitude: Double
    public var longitude: Double
    /// The provider's fix time, Unix milliseconds.
    public var timestamp: Int64
    public var accuracy: Double?
    public var speed: Double?
    public var bearing: Double?
    public var altitude: Double?
    /// The OS's activity classification, used only when `detectActivity` is on.
    public var activity: Activity?
    /// Whether the OS flagged the fix as mock.
    public var isMock: Bool

    /// A fix from what the provider reported.
    public init(
        latitude: Double, longitude: Double, timestamp: Int64, accuracy: Double? = nil,
        speed: Double? = nil, bearing: Double? = nil, altitude: Double? = nil,
        activity: Activity? = nil, isMock: Bool = false
    ) {
        self.latitude = latitude
        self.longitude = longitude
        self.timestamp = timestamp
        self.accuracy = accuracy
        self.speed = speed
        self.bearing = bearing
        self.altitude = altitude
        self.activity = activity
        self.isMock = isMock
    }
}
