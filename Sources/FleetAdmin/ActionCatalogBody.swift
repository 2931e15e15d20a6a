import BeekonDevice
import FleetDescription
import FleetReport

/// `GET /api/v1/actions`: every action as `FleetAction.catalog` describes it, and the selectors
/// that pick devices for it. The page builds its action controls from this document.
struct ActionCatalogBody: APIBody {
    struct Action: APIBody {
        var name: FleetAction.Name
        var summary: String
        var lasts: Bool
        var `for`: String?
        var undoneBy: ActionRequestBody?
        var params: [Parameter]

        static let example = Action(FleetAction.Name.latency.details)
        static let notes = [
            "lasts": APINote("Whether a timeline fault may give it a `for`."),
            "for": APINote("What a timeline fault's `for` means for it."),
            "undoneBy": APINote(
                "The action that runs when a timeline fault's `for` runs out, as a request sends it."),
        ]
    }

    struct Parameter: APIBody {
        var name: String
        var type: ActionParameter.JSONType
        var required: Bool
        var summary: String
        var example: String
        var minimum: Omittable<Double>
        var maximum: Omittable<Double>
        var unit: Omittable<String>
        var `enum`: Omittable<[String]>

        static let example = Parameter(FleetAction.Name.latency.details.parameters[0])
        static let notes = [
            "example": APINote("A value as JSON (and a fleet file) writes it."),
            "enum": APINote("The words a string parameter takes, when it takes only these."),
        ]
    }

    struct Selector: APIBody {
        enum Name: String, APIEnum { case all, group, fraction, ids, state }

        var name: Name
        var summary: String

        static let example = Selector(name: .all, summary: "")
    }

    var actions: [Action]
    var selectors: [Selector]

    /// The selector forms, as `POST /api/v1/fleet/actions` and a timeline fault's `select` take them.
    static let selectors: [Selector] = [
        Selector(name: .all, summary: "every device: `{\"all\": true}` (`select: all` in a fleet file)"),
        Selector(name: .group, summary: "the devices of one group: `{\"group\": \"couriers\"}`"),
        Selector(
            name: .fraction,
            summary: "a seeded share of the devices: `{\"fraction\": 0.2, \"seed\": 7}` (seed optional)"),
        Selector(name: .ids, summary: "these devices: `{\"ids\": [\"couriers-0001\"]}`"),
        Selector(
            name: .state,
            summary: "the devices whose state is this, or starts with it before `*`: `{\"state\": \"paused*\"}`"),
    ]

    static let catalog = ActionCatalogBody(
        actions: FleetAction.Name.allCases.map { Action($0.details) }, selectors: selectors)

    /// The document, written once: the catalog does not change while the fleet runs.
    static let document = APIJSON.bytes(catalog, capacity: 8192)

    static let example = catalog
    static let component: String? = "ActionCatalog"
}

extension ActionCatalogBody.Action {
    init(_ action: ActionDescription) {
        name = action.name
        summary = action.summary
        lasts = action.lasts
        switch action.ending {
        case .never: self.for = nil
        case .undoneBy(let opposite): self.for = "after `for`, \(opposite.name.rawValue) runs on the same devices"
        case .recovers: self.for = "how long the device takes to recover (default 5 s)"
        case .relaunches: self.for = "the relaunch delay, as relaunchAfterSeconds"
        case .lapses: self.for = "how long it lasts (default 60 s), as forSeconds"
        }
        undoneBy = action.ending.undoing.map(ActionRequestBody.init)
        params = action.parameters.map(ActionCatalogBody.Parameter.init)
    }
}

extension ActionCatalogBody.Parameter {
    init(_ parameter: ActionParameter) {
        name = parameter.name
        type = parameter.jsonType
        required = parameter.required
        summary = parameter.summary
        example = parameter.example
        minimum = Omittable(parameter.range?.lower)
        maximum = Omittable(parameter.range?.upper)
        unit = Omittable(parameter.range?.unit)
        self.enum = Omittable(parameter.choices)
    }
}

extension GeofenceBody {
    init(_ geofence: Geofence) {
        id = geofence.id
        latitude = geofence.latitude
        longitude = geofence.longitude
        radius = geofence.radiusMeters
    }
}
