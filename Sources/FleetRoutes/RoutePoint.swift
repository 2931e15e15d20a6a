/// One point of a route: where the emulated phone is and, when the file says so, when and how.
public struct RoutePoint: Sendable, Hashable {
    /// Degrees north, −90…90.
    public var latitude: Double
    /// Degrees east, −180…180.
    public var longitude: Double
    /// Unix milliseconds, when the file gives a time for this point.
    public var time: Int64?
    /// Metres above the ellipsoid (or sea level, as the file has it).
    public var altitude: Double?
    /// Metres per second.
    public var speed: Double?
    /// Horizontal accuracy radius in metres.
    public var accuracy: Double?
    /// Degrees clockwise from true north.
    public var bearing: Double?

    /// A point at `latitude`/`longitude` with whatever else is known about it.
    public init(
        latitude: Double, longitude: Double, time: Int64? = nil, altitude: Double? = nil,
        speed: Double? = nil, accuracy: Double? = nil, bearing: Double? = nil
    ) {
        self.latitude = latitude
        self.longitude = longitude
        self.time = time
        self.altitude = altitude
        self.speed = speed
        self.accuracy = accuracy
        self.bearing = bearing
    }
}
