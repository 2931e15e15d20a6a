import FleetReport

/// `GET /api/v1/devices/{id}/locations`.
struct LocationsBody: APIBody {
    var locations: [StoredLocationBody]

    static let example = LocationsBody(locations: [])
    static let component: String? = "Locations"
}
