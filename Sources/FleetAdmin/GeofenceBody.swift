import BeekonDevice
import FleetReport

/// A geofence as a request and a fleet file give it.
struct GeofenceBody: APIBody {
    var id: String
    var latitude: Double
    var longitude: Double
    var radius: Double

    static let example = GeofenceBody(id: "depot", latitude: 0, longitude: 0, radius: 1)
    static let component: String? = "Geofence"
    static let closed = true
    static let notes = [
        "id": APINote(
            "Not starting with `\(Geofence.reservedIDPrefix)` (the SDK's own).", minLength: 1,
            maxLength: Geofence.idMaxLength, pattern: "^(?!\(Geofence.reservedIDPrefix))"),
        "latitude": APINote(range: Geofence.latitudeRange),
        "longitude": APINote(range: Geofence.longitudeRange),
        "radius": APINote(range: Geofence.radiusRange),
    ]
}
