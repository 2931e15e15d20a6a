import FleetReport

/// The `devices` live event: devices whose state, pending count or last outcome changed.
struct DevicesEventBody: APIBody {
    struct Change: APIBody {
        var id: String
        var state: String
        var pending: Int
        var lastOutcome: String?

        static let example = Change(id: "", state: "", pending: 0, lastOutcome: nil)
    }

    var changes: [Change]
    var truncated: Omittable<Bool>

    static let example = DevicesEventBody(changes: [], truncated: .present(true))
    static let component: String? = "DevicesEvent"
    static let notes = [
        "truncated": APINote(
            "More changed than one event carries (the rest follow in the next), or changes were missed (the "
                + "fleet's change log moved past them): list the devices to be sure.")
    ]
}
