import FleetEngine
import FleetReport

/// `POST /api/v1/devices`'s body: copies of a group, or a new group.
struct SpawnDevicesRequest: APIRequest {
    enum Count: NumberField { static let range = SpawnRequest.countRange }
    enum Rate: NumberField { static let range = SpawnRequest.rateRange }

    var group: String?
    var count: Ranged<Count>?
    var ratePerSecond: Ranged<Rate>?
    var spec: RawMember?

    static let component = "SpawnRequest"
    static let forms = [
        APIRequestForm(required: ["group", "count"], optional: ["ratePerSecond"]),
        APIRequestForm(required: ["spec"], optional: ["ratePerSecond"]),
    ]
    static let notes = [
        "group": APINote("An existing group whose template is copied."),
        "ratePerSecond": APINote("At most this many spawn each real second; absent: all at once."),
        "spec": APINote("A new group, as in a fleet file.", reference: "GroupSpec"),
    ]
}
