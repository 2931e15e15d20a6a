/// An object of any keys, in a fixed order (a dictionary's would change from run to run).
package struct APIMap<Value: Encodable & Sendable & APIDescribed>: Encodable, Sendable, APIDescribed {
    var entries: [(key: String, value: Value)]

    package init(_ entries: [(key: String, value: Value)]) { self.entries = entries }

    /// Counts and the like, in their keys' order, each key named by its description.
    package init<Key: Comparable & CustomStringConvertible>(sorting map: [Key: Value]) {
        entries = map.sorted { $0.key < $1.key }.map { ($0.key.description, $0.value) }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MemberName.self)
        for entry in entries { try container.encode(entry.value, forKey: MemberName(stringValue: entry.key)) }
    }

    package static var apiSchema: APISchema { apiSchema(keys: .camelCase) }
    package static func apiSchema(keys: APIKeyStyle) -> APISchema { APISchema(.map(Value.apiSchema(keys: keys))) }
}
