import FleetReport

/// A member passed on as it came, to a reader of its own (a group spec, an action's params).
struct RawMember: BodyReadable, Sendable {
    var value: JSONValue

    static func read(_ value: JSONValue, field: String) -> RawMember { RawMember(value: value) }
    static var apiSchema: APISchema { APISchema(.anyObject) }
}
