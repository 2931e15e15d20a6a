import BeekonDevice

/// A JSON Schema in the OpenAPI 3.0 subset the admin's document uses. The schemas of the API's
/// bodies are generated from their `Codable` types (`APIDescribed`), so a body and its
/// description cannot part: `beekon-fleet openapi` writes them into docs/openapi.yaml.
package struct APISchema: Sendable {
    package indirect enum Shape: Sendable {
        case string(oneOf: [String]?)
        case integer
        case number
        case boolean
        case array(APISchema)
        /// An object of any keys, each value of this schema (`additionalProperties`).
        case map(APISchema)
        /// An object of these members (a nil one is written as `null`; only an `Omittable` one
        /// is left out, and so not required).
        case object([APIMember])
        /// An object the document does not spell out (its description says what it holds).
        case anyObject
        /// A schema of `components.schemas`.
        case reference(String)
        case oneOf([APISchema])
    }

    var shape: Shape
    var format: String?
    package var nullable = false
    var description: String?
    package var minimum: Double?
    package var maximum: Double?
    var maxItems: Int?
    var minItems: Int?
    var minLength: Int?
    var maxLength: Int?
    /// A regular expression (ECMA 262) a string matches somewhere: anchor it to match it whole.
    var pattern: String?
    /// An object that takes no member but its own (`additionalProperties: false`).
    package var closed = false
    /// A boolean that must be true (`enum: [true]`).
    var onlyTrue = false

    package init(_ shape: Shape, format: String? = nil, description: String? = nil) {
        self.shape = shape
        self.format = format
        self.description = description
    }

    /// This schema with `description`.
    package func described(_ text: String?) -> APISchema {
        var copy = self
        if let text { copy.description = text }
        return copy
    }

    /// The schema as compact JSON (a YAML flow mapping too): OpenAPI 3.0's form, or with
    /// `jsonSchema` JSON Schema 2020-12's, where a nullable type is `["number", "null"]`.
    package func write(to json: inout JSONWriter, jsonSchema: Bool = false) {
        json.beginObject()
        // `$ref` stands alone: OpenAPI 3.0 ignores its siblings.
        if case .reference(let name) = shape, !nullable, description == nil {
            json.key("$ref")
            json.string("#/components/schemas/\(name)")
            json.endObject()
            return
        }
        if let description {
            json.key("description")
            json.string(description)
        }
        if nullable && !jsonSchema {
            json.key("nullable")
            json.bool(true)
        }
        // JSON Schema says nullable in the type itself.
        func type(_ name: StaticString, _ json: inout JSONWriter) {
            json.key("type")
            if nullable && jsonSchema {
                json.beginArray()
                json.string(name.description)
                json.string("null")
                json.endArray()
            } else {
                json.string(name.description)
            }
        }
        switch shape {
        case .string(let values):
            type("string", &json)
            if let values {
                json.key("enum")
                json.beginArray()
                for value in values { json.string(value) }
                if nullable { json.null() }
                json.endArray()
            }
        case .integer: type("integer", &json)
        case .number: type("number", &json)
        case .boolean:
            type("boolean", &json)
            if onlyTrue {
                json.key("enum")
                json.beginArray()
                json.bool(true)
                json.endArray()
            }
        case .array(let items):
            type("array", &json)
            json.key("items")
            items.write(to: &json, jsonSchema: jsonSchema)
        case .map(let values):
            type("object", &json)
            json.key("additionalProperties")
            values.write(to: &json, jsonSchema: jsonSchema)
        case .object(let members):
            type("object", &json)
            if closed {
                json.key("additionalProperties")
                json.bool(false)
            }
            // JSON Schema's `required` holds at least one name: with none, it is left out.
            if members.contains(where: \.required) {
                json.key("required")
                json.beginArray()
                for member in members where member.required { json.string(member.name) }
                json.endArray()
            }
            json.key("properties")
            json.beginObject()
            for member in members {
                json.key(member.name)
                member.schema.write(to: &json, jsonSchema: jsonSchema)
            }
            json.endObject()
        case .anyObject: type("object", &json)
        case .reference(let name):
            json.key("allOf")
            json.beginArray()
            APISchema(.reference(name)).write(to: &json)
            json.endArray()
        case .oneOf(let options):
            json.key("oneOf")
            json.beginArray()
            for option in options { option.write(to: &json, jsonSchema: jsonSchema) }
            json.endArray()
        }
        if let format {
            json.key("format")
            json.string(format)
        }
        if let minimum {
            json.key("minimum")
            json.number(minimum)
        }
        if let maximum {
            json.key("maximum")
            json.number(maximum)
        }
        if let maxItems {
            json.key("maxItems")
            json.integer(Int64(maxItems))
        }
        if let minItems {
            json.key("minItems")
            json.integer(Int64(minItems))
        }
        if let minLength {
            json.key("minLength")
            json.integer(Int64(minLength))
        }
        if let maxLength {
            json.key("maxLength")
            json.integer(Int64(maxLength))
        }
        if let pattern {
            json.key("pattern")
            json.string(pattern)
        }
        json.endObject()
    }

    /// The schema as YAML lines `indent` spaces in: an object's members a line each (so the
    /// document reads and diffs member by member), everything else as one flow line.
    package func yaml(named name: String, indent: Int) -> [String] {
        let pad = String(repeating: " ", count: indent)
        if case .array(let items) = shape, case .object = items.shape, !items.nullable, !nullable {
            var lines = [pad + "\(Self.yamlKey(name)):", pad + "  type: array"]
            if let description { lines.append(pad + "  description: " + Self.quoted(description)) }
            if let maxItems { lines.append(pad + "  maxItems: \(maxItems)") }
            return lines + items.yaml(named: "items", indent: indent + 2)
        }
        if case .oneOf(let options) = shape, !nullable {
            var lines = [pad + "\(Self.yamlKey(name)):"]
            if let description { lines.append(pad + "  description: " + Self.quoted(description)) }
            return lines + [pad + "  oneOf:"] + options.map { pad + "    - " + $0.flow }
        }
        guard case .object(let members) = shape, !nullable else {
            return [pad + "\(Self.yamlKey(name)): " + flow]
        }
        var lines = [pad + "\(Self.yamlKey(name)):", pad + "  type: object"]
        if let description { lines.append(pad + "  description: " + Self.quoted(description)) }
        let required = members.filter(\.required).map { Self.yamlKey($0.name) }
        if closed { lines.append(pad + "  additionalProperties: false") }
        if !required.isEmpty { lines.append(pad + "  required: [" + required.joined(separator: ", ") + "]") }
        lines.append(pad + "  properties:")
        for member in members { lines += member.schema.yaml(named: member.name, indent: indent + 4) }
        return lines
    }

    var flow: String {
        var json = JSONWriter(capacity: 128)
        write(to: &json)
        return String(decoding: json.bytes, as: UTF8.self)
    }

    /// YAML reads `for`, `p50` and the like as plain keys; anything else is quoted.
    private static func yamlKey(_ name: String) -> String {
        let plain = name.unicodeScalars.allSatisfy {
            ($0.properties.isAlphabetic && $0.isASCII) || ("0"..."9").contains($0)
        }
        let reserved = ["y", "n", "yes", "no", "on", "off", "true", "false", "null"].contains(name.lowercased())
        return plain && !reserved ? name : quoted(name)
    }

    private static func quoted(_ text: String) -> String {
        var json = JSONWriter(capacity: text.utf8.count + 2)
        json.string(text)
        return String(decoding: json.bytes, as: UTF8.self)
    }
}

extension APIDescribed {
    package static func apiSchema(keys: APIKeyStyle) -> APISchema { apiSchema }
}

extension String: APIDescribed { package static var apiSchema: APISchema { APISchema(.string(oneOf: nil)) } }
extension Int: APIDescribed { package static var apiSchema: APISchema { APISchema(.integer) } }
extension Int64: APIDescribed { package static var apiSchema: APISchema { APISchema(.integer, format: "int64") } }
extension UInt64: APIDescribed { package static var apiSchema: APISchema { APISchema(.integer, format: "int64") } }
extension Double: APIDescribed { package static var apiSchema: APISchema { APISchema(.number) } }
extension Bool: APIDescribed { package static var apiSchema: APISchema { APISchema(.boolean) } }

extension Array: APIDescribed where Element: APIDescribed {
    package static var apiSchema: APISchema { apiSchema(keys: .camelCase) }
    package static func apiSchema(keys: APIKeyStyle) -> APISchema { APISchema(.array(Element.apiSchema(keys: keys))) }
}

extension Dictionary: APIDescribed where Key == String, Value: APIDescribed {
    package static var apiSchema: APISchema { apiSchema(keys: .camelCase) }
    package static func apiSchema(keys: APIKeyStyle) -> APISchema { APISchema(.map(Value.apiSchema(keys: keys))) }
}

extension Optional: APIDescribed where Wrapped: APIDescribed {
    package static var apiSchema: APISchema { apiSchema(keys: .camelCase) }
    package static func apiSchema(keys: APIKeyStyle) -> APISchema {
        var schema = Wrapped.apiSchema(keys: keys)
        schema.nullable = true
        return schema
    }
}

extension APIEnum {
    package static var apiSchema: APISchema { APISchema(.string(oneOf: allCases.map(\.rawValue))) }
}

extension APIBody {
    package static var keyStyle: APIKeyStyle { .camelCase }
    package static var component: String? { nil }
    package static var summary: String? { nil }
    package static var notes: [String: APINote] { [:] }
    package static func summary(_ keys: APIKeyStyle) -> String? { summary }
    package static func notes(_ keys: APIKeyStyle) -> [String: APINote] { notes }
    package static var closed: Bool { false }

    package static var apiSchema: APISchema { apiSchema(keys: keyStyle) }

    /// A component is referred to in the API's document; in the report's style it is written
    /// where it is used (the report's schema stands alone).
    package static func apiSchema(keys: APIKeyStyle) -> APISchema {
        if let component, keys == .camelCase { return APISchema(.reference(component)) }
        return objectSchema(keys: keys)
    }

    /// The schema of the members this type encodes, in its own key style.
    package static var objectSchema: APISchema { objectSchema(keys: keyStyle) }

    /// The schema of the members this type encodes, named in `keys`' style.
    package static func objectSchema(keys: APIKeyStyle) -> APISchema {
        let recorder = APISchemaRecorder(keys: keys)
        let notes = notes(keys)
        let members = recorder.members(of: example).map { member, key in
            var member = member
            if let note = notes[member.name] ?? notes[key] { note.apply(to: &member.schema) }
            return member
        }
        var schema = APISchema(.object(members), description: summary(keys))
        schema.closed = closed
        return schema
    }
}
