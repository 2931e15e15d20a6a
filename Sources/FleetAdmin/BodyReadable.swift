import FleetReport

/// A member type that reads itself from its JSON value, naming `field` when it refuses it: a
/// number in its range, a warp, a raw value passed on to another reader.
protocol BodyReadable: Decodable, APIDescribed {
    static func read(_ value: JSONValue, field: String) throws(APIError) -> Self
}
