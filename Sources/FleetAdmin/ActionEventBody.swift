import FleetDescription
import FleetReport

/// The `action` live event: an action just applied.
struct ActionEventBody: APIBody {
    var action: FleetAction.Name
    var applied: Int
    var at: APITime

    static let example = ActionEventBody(action: .sync, applied: 0, at: APITime(0))
    static let component: String? = "ActionEvent"
    static let notes = ["applied": APINote("How many devices it was applied to.")]
}
