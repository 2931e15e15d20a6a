import FleetReport

/// A fix still in a device's store.
struct StoredLocationBody: APIBody {
    var id: String
    var timestamp: APITime
    var latitude: Double
    var longitude: Double
    var accuracy: Double?
    var speed: Double?
    var trigger: String
    var uploaded: Bool

    static let example = StoredLocationBody(
        id: "", timestamp: APITime(0), latitude: 0, longitude: 0, accuracy: nil, speed: nil, trigger: "",
        uploaded: false)
    static let component: String? = "StoredLocation"
}
