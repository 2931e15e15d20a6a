import BeekonDevice
import FleetDescription

/// The OpenAPI schemas of the action requests, generated from `FleetAction.catalog` (a part of
/// the document's generated schemas: see `AdminSchemas`).
enum ActionSchemas {
    /// The generated schema lines (4 spaces in, under `components.schemas`).
    static let generated: [String] = {
        var lines = ["    ActionName: " + flow { json in names(FleetAction.Name.allCases, to: &json) }]
        for (schema, withSelector) in [("DeviceActionRequest", false), ("FleetActionRequest", true)] {
            lines.append("    \(schema):")
            lines.append("      oneOf:")
            for name in FleetAction.Name.allCases {
                lines.append("        - " + flow { json in request(name.details, selector: withSelector, to: &json) })
            }
        }
        return lines
    }()

    private static func flow(_ write: (inout JSONWriter) -> Void) -> String {
        var json = JSONWriter(capacity: 512)
        write(&json)
        return String(decoding: json.bytes, as: UTF8.self)
    }

    private static func names(_ names: [FleetAction.Name], to json: inout JSONWriter) {
        json.beginObject()
        json.key("type")
        json.string("string")
        json.key("enum")
        json.beginArray()
        for name in names { json.string(name.rawValue) }
        json.endArray()
        json.endObject()
    }

    /// `{"action": NAME, "params"…}` (and `selector`) for one action.
    private static func request(_ action: ActionDescription, selector: Bool, to json: inout JSONWriter) {
        let needsParams = action.parameters.contains(where: \.required)
        json.beginObject()
        json.key("title")
        json.string(action.name.rawValue)
        json.key("description")
        json.string(action.summary)
        json.key("type")
        json.string("object")
        json.key("additionalProperties")
        json.bool(false)
        json.key("required")
        json.beginArray()
        json.string("action")
        if selector { json.string("selector") }
        if needsParams { json.string("params") }
        json.endArray()
        json.key("properties")
        json.beginObject()
        json.key("action")
        names([action.name], to: &json)
        if selector {
            json.key("selector")
            json.beginObject()
            reference("Selector", to: &json)
            json.endObject()
        }
        json.key("params")
        json.beginObject()
        json.key("type")
        json.string("object")
        if !needsParams {
            json.key("nullable")
            json.bool(true)
        }
        json.key("additionalProperties")
        json.bool(false)
        let required = action.parameters.filter(\.required)
        if !required.isEmpty {
            json.key("required")
            json.beginArray()
            for parameter in required { json.string(parameter.name) }
            json.endArray()
        }
        json.key("properties")
        json.beginObject()
        for parameter in action.parameters {
            json.key(parameter.name)
            schema(of: parameter, to: &json)
        }
        json.endObject()
        json.endObject()
        json.endObject()
        json.endObject()
    }

    private static func schema(of parameter: ActionParameter, to json: inout JSONWriter) {
        json.beginObject()
        json.key("description")
        json.string(parameter.summary + (parameter.range.map { $0.unit.isEmpty ? "" : " (\($0.unit))" } ?? ""))
        if !parameter.required {
            // null, like leaving it out, takes the default.
            json.key("nullable")
            json.bool(true)
        }
        switch parameter.kind {
        case .millis(let range), .number(let range), .seconds(let range):
            json.key("type")
            json.string(parameter.jsonType.rawValue)
            json.key("minimum")
            json.number(range.lower)
            json.key("maximum")
            json.number(range.upper)
        case .config:
            reference("ConfigBlock", to: &json)
        case .stringMap:
            json.key("type")
            json.string("object")
            json.key("additionalProperties")
            json.beginObject()
            json.key("type")
            json.string("string")
            json.endObject()
        case .geofences:
            json.key("type")
            json.string("array")
            json.key("items")
            json.beginObject()
            reference("Geofence", to: &json)
            json.endObject()
        case .choice(let words):
            json.key("type")
            json.string("string")
            json.key("enum")
            json.beginArray()
            for word in words { json.string(word) }
            // OpenAPI 3.0: `nullable` admits null only where an `enum` lists it too.
            if !parameter.required { json.null() }
            json.endArray()
        case .instant:
            json.key("type")
            json.string("string")
            json.key("format")
            json.string("date-time")
        case .version:
            // As a group's `sdkVersion` in the document.
            json.key("type")
            json.string("string")
            json.key("pattern")
            json.string("^[!-~]{1,64}$")
        case .latency:
            latencySchema(to: &json)
        case .strings:
            json.key("type")
            json.string("array")
            json.key("items")
            json.beginObject()
            json.key("type")
            json.string("string")
            json.endObject()
        }
        json.endObject()
    }

    /// `{median, tail}`: a latency distribution's ms (p95 = median + tail), each in
    /// `NetworkProfile`'s range: every pair is a distribution, so the schema says all the reader takes.
    private static func latencySchema(to json: inout JSONWriter) {
        json.key("type")
        json.string("object")
        json.key("additionalProperties")
        json.bool(false)
        json.key("properties")
        json.beginObject()
        for (name, range) in [
            ("median", NetworkProfile.latencyMedianRange), ("tail", NetworkProfile.latencyTailRange),
        ] {
            json.key(name)
            json.beginObject()
            json.key("type")
            json.string("integer")
            json.key("minimum")
            json.number(range.lower)
            json.key("maximum")
            json.number(range.upper)
            json.endObject()
        }
        json.endObject()
    }

    /// `allOf: [{$ref}]`: a reference that keeps its siblings (a bare `$ref` ignores them).
    private static func reference(_ schema: String, to json: inout JSONWriter) {
        json.key("allOf")
        json.beginArray()
        json.beginObject()
        json.key("$ref")
        json.string("#/components/schemas/\(schema)")
        json.endObject()
        json.endArray()
    }
}
