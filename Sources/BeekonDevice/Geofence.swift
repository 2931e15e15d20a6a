/// A circular region the app asked to watch (`addGeofences`).
public struct Geofence: Sendable, Hashable, Codable {
    /// The app's id: 1–100 characters, not starting with `bk:`.
    public var id: String
    /// Centre latitude, −90…90.
    public var latitude: Double
    /// Centre longitude, −180…180.
    public var longitude: Double
    /// Radius in metres, > 0.
    public var radiusMeters: Double

    /// `latitude`, degrees.
    public static let latitudeRange = NumberRange(-90...90, unit: "°")
    /// `longitude`, degrees.
    public static let longitudeRange = NumberRange(-180...180, unit: "°")
    /// `radius`: 1 m to 100 km (the SDK needs it above 0; a fleet file's geofences stay in this).
    public static let radiusRange = NumberRange(1...100_000, unit: "m")
    /// The longest `id`, in Unicode scalars (as JSON Schema's `maxLength` counts).
    public static let idMaxLength = 100
    /// The prefix the SDK keeps for its own ids.
    public static let reservedIDPrefix = "bk:"

    /// A geofence from its parts (validated when added, not here).
    public init(id: String, latitude: Double, longitude: Double, radiusMeters: Double) {
        self.id = id
        self.latitude = latitude
        self.longitude = longitude
        self.radiusMeters = radiusMeters
    }
}
