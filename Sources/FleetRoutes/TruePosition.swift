/// Where the phone really is at an instant, as the route and the motion say.
public struct TruePosition: Sendable, Hashable {
    public var latitude: Double
    public var longitude: Double
    /// Metres per second along the route; 0 when standing.
    public var speed: Double
    /// Degrees clockwise from true north, the direction of travel.
    public var bearing: Double
    /// Metres, when the route has elevation.
    public var altitude: Double?
    /// How the person travels when the fleet file names it (`pace: walk`); nil when only the
    /// speed says (route times, a pace in m/s).
    public var travelMode: Pace?

    /// A position from its parts.
    public init(
        latitude: Double, longitude: Double, speed: Double, bearing: Double, altitude: Double? = nil,
        travelMode: Pace? = nil
    ) {
        self.latitude = latitude
        self.longitude = longitude
        self.speed = speed
        self.bearing = bearing
        self.altitude = altitude
        self.travelMode = travelMode
    }
}
