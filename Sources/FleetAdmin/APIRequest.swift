import FleetReport

/// A request body of the admin API: a `Decodable` type read by `BodyDecoder`, whose refusals name
/// the field, and whose schema is derived from the members its `init(from:)` asks for
/// (`APIRequestRecorder`). Every member is optional when decoded (null is as absent): which
/// must be given, and together with what, is said by `forms` and checked once decoded, so the
/// refusal says it in words.
protocol APIRequest: Decodable, Sendable {
    /// Its name under `components.schemas`.
    static var component: String { get }
    static var summary: String? { get }
    static var notes: [String: APINote] { get }
    /// The shapes a body may take, each a oneOf option; none: one shape, every member optional.
    static var forms: [APIRequestForm] { get }
}

extension APIRequest {
    static var summary: String? { nil }
    static var notes: [String: APINote] { [:] }
    static var forms: [APIRequestForm] { [] }

    /// The body read from `bytes`: one JSON object of this type's members, each of its type.
    static func read(_ bytes: [UInt8]) throws(APIError) -> Self {
        let value: JSONValue
        do throws(JSONValue.SyntaxError) {
            value = try JSONValue.parse(bytes)
        } catch {
            throw .badRequest("the body is not valid JSON: \(error.message)")
        }
        guard case .object = value else {
            throw APIError(
                status: 400, code: .badType, message: "the body must be a JSON object, not \(value.kindName)")
        }
        return try BodyDecoder.object(Self.self, from: value, path: "")
    }

    /// The schema: its members, each nullable, in the shapes `forms` allows.
    static var requestSchema: APISchema {
        let recorder = APISchemaRecorder.Record()
        _ = try? Self(from: APIRequestRecorder(record: recorder))
        var members = recorder.members
        for index in members.indices {
            if let note = notes[members[index].name] { note.apply(to: &members[index].schema) }
        }
        func object(_ names: [String], required: [String]) -> APISchema {
            var schema = APISchema(
                .object(
                    members.filter { names.contains($0.name) }.map { member in
                        // A member a shape needs must be given, not null (null is as absent).
                        var schema = member.schema
                        if required.contains(member.name) { schema.nullable = false }
                        return APIMember(name: member.name, schema: schema, required: required.contains(member.name))
                    }))
            schema.closed = true
            return schema
        }
        guard !forms.isEmpty else {
            return object(members.map(\.name), required: []).described(summary)
        }
        return APISchema(
            .oneOf(forms.map { object($0.required + $0.optional, required: $0.required) }), description: summary)
    }
}

extension BodyReadable {
    /// Outside `BodyDecoder` a member is read from the JSON its decoder holds as text.
    init(from decoder: any Decoder) throws {
        throw APIError.badRequest("\(Self.self) is read by the admin's request reader only")
    }
}
