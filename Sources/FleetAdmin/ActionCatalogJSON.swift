import BeekonDevice
import FleetDescription

/// `GET /api/v1/actions`: every action as `FleetAction.catalog` describes it, and the selectors
/// that pick devices for it. The page builds its action controls from this document.
enum ActionCatalogJSON {
    /// The document, written once: the catalog does not change while the fleet runs.
    static let document: [UInt8] = {
        var json = JSONWriter(capacity: 8192)
        json.beginObject()
        json.key("actions")
        json.beginArray()
        for name in FleetAction.Name.allCases { write(name.details, to: &json) }
        json.endArray()
        json.key("selectors")
        json.beginArray()
        for (name, summary) in selectors {
            json.beginObject()
            json.key("name")
            json.string(name)
            json.key("summary")
            json.string(summary)
            json.endObject()
        }
        json.endArray()
        json.endObject()
        return json.bytes
    }()

    /// The selector forms, as `POST /api/v1/fleet/actions` and a timeline fault's `select` take them.
    static let selectors: [(String, String)] = [
        ("all", "every device: `{\"all\": true}` (`select: all` in a fleet file)"),
        ("group", "the devices of one group: `{\"group\": \"couriers\"}`"),
        ("fraction", "a seeded share of the devices: `{\"fraction\": 0.2, \"seed\": 7}` (seed optional)"),
        ("ids", "these devices: `{\"ids\": [\"couriers-0001\"]}`"),
        ("state", "the devices whose state is this, or starts with it before `*`: `{\"state\": \"paused*\"}`"),
    ]

    private static func write(_ action: ActionDescription, to json: inout JSONWriter) {
        json.beginObject()
        json.key("name")
        json.string(action.name.rawValue)
        json.key("summary")
        json.string(action.summary)
        json.key("lasts")
        json.bool(action.lasts)
        json.key("for")
        switch action.ending {
        case .never: json.null()
        case .undoneBy(let opposite):
            json.string("after `for`, \(opposite.name.rawValue) runs on the same devices")
        case .recovers: json.string("how long the device takes to recover (default 5 s)")
        case .relaunches: json.string("the relaunch delay, as relaunchAfterSeconds")
        }
        json.key("undoneBy")
        if case .undoneBy(let opposite) = action.ending {
            request(opposite, to: &json)
        } else {
            json.null()
        }
        json.key("params")
        json.beginArray()
        for parameter in action.parameters { write(parameter, to: &json) }
        json.endArray()
        json.endObject()
    }

    private static func write(_ parameter: ActionParameter, to json: inout JSONWriter) {
        json.beginObject()
        json.key("name")
        json.string(parameter.name)
        json.key("type")
        json.string(parameter.jsonType.rawValue)
        json.key("required")
        json.bool(parameter.required)
        json.key("summary")
        json.string(parameter.summary)
        json.key("example")
        json.string(parameter.example)
        if let range = parameter.range {
            json.key("minimum")
            json.number(range.lower)
            json.key("maximum")
            json.number(range.upper)
            json.key("unit")
            json.string(range.unit)
        }
        json.endObject()
    }

    /// `{"action", "params"}` as a client would send `action`.
    static func request(_ action: FleetAction, to json: inout JSONWriter) {
        json.beginObject()
        json.key("action")
        json.string(action.name.rawValue)
        json.key("params")
        json.beginObject()
        let values = action.parameterValues
        for parameter in action.name.details.parameters {
            guard let value = values[parameter.name] else { continue }
            json.key(parameter.name)
            write(value, of: parameter.kind, to: &json)
        }
        json.endObject()
        json.endObject()
    }

    private static func write(_ value: ActionParameter.Value, of kind: ActionParameter.Kind, to json: inout JSONWriter)
    {
        switch (value, kind) {
        case (.millis(let millis), .seconds): json.number(Double(millis) / 1000)
        case (.millis(let millis), _): json.integer(millis)
        case (.number(let number), _): json.number(number)
        case (.config(let config), _): RedactedConfig.write(config, to: &json)
        case (.stringMap(let map), _):
            json.beginObject()
            for (key, text) in map {
                json.key(key)
                json.string(text)
            }
            json.endObject()
        case (.geofences(let geofences), _):
            json.beginArray()
            for geofence in geofences {
                json.beginObject()
                json.key("id")
                json.string(geofence.id)
                json.key("latitude")
                json.number(geofence.latitude)
                json.key("longitude")
                json.number(geofence.longitude)
                json.key("radius")
                json.number(geofence.radiusMeters)
                json.endObject()
            }
            json.endArray()
        case (.strings(let strings), _):
            json.beginArray()
            for text in strings { json.string(text) }
            json.endArray()
        }
    }
}
