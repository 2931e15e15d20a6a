/// Derives an `APIBody`'s members from what its `encode(to:)` does with an example value: each
/// member's name in order (in the key style it is recorded in) and its schema from its static type
/// (`APIDescribed`), nullable when encoded as an optional. A member of a type with no schema is
/// recorded as `undescribed` so the document test names it.
package struct APISchemaRecorder {
    static let undescribed = "UNDESCRIBED"

    var keys: APIKeyStyle = .camelCase

    /// The members, each with the name its type gives it (its notes may use either).
    func members(of value: some Encodable) -> [(member: APIMember, key: String)] {
        let record = Record(keys: keys)
        try? value.encode(to: Recorder(record: record))
        return record.objectMembers.map { ($0, record.keyOf[$0.name] ?? $0.name) }
    }

    package final class Record {
        let keys: APIKeyStyle
        package var members: [APIMember] = []
        /// A member's name as its type spells it, by its name as written.
        var keyOf: [String: String] = [:]
        /// The members of a member encoded through a nested container, by its name as written.
        var nested: [String: Record] = [:]

        package init(keys: APIKeyStyle = .camelCase) { self.keys = keys }

        /// The members, a nested container's as an object of its own members.
        var objectMembers: [APIMember] {
            members.map { member in
                guard let record = nested[member.name] else { return member }
                var member = member
                member.schema = APISchema(.object(record.objectMembers))
                return member
            }
        }

        package func add(_ name: String, _ type: Any.Type, nullable: Bool) {
            var schema: APISchema
            var required = true
            if let omittable = type as? any OmittableMember.Type {
                schema = omittable.wrappedSchema
                required = false
            } else if let described = type as? any APIDescribed.Type {
                schema = described.apiSchema(keys: keys)
            } else {
                schema = APISchema(.anyObject, description: "\(APISchemaRecorder.undescribed) \(type)")
            }
            if nullable { schema.nullable = true }
            members.removeAll { $0.name == name }
            members.append(APIMember(name: name, schema: schema, required: required))
        }

        /// A member named by `key`, in the record's key style.
        func add(_ key: some CodingKey, _ type: Any.Type, nullable: Bool) {
            let name = keys.name(key)
            keyOf[name] = key.stringValue
            add(name, type, nullable: nullable)
        }
    }

    struct Recorder: Encoder {
        let record: Record
        var codingPath: [any CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            KeyedEncodingContainer(Keyed<Key>(record: record))
        }
        // A body is an object; anything else it encodes at its top is not a member.
        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            APIJSON.Unkeyed(node: APIJSON.Node(), keys: record.keys)
        }
        func singleValueContainer() -> any SingleValueEncodingContainer {
            APIJSON.Single(node: APIJSON.Node(), keys: record.keys)
        }
    }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let record: Record
        var codingPath: [any CodingKey] { [] }

        mutating func encodeNil(forKey key: Key) {
            record.add(key, Never.self, nullable: true)
        }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) {
            record.add(key, T.self, nullable: false)
        }
        mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) { add(Bool.self, key) }
        mutating func encodeIfPresent(_ value: String?, forKey key: Key) { add(String.self, key) }
        mutating func encodeIfPresent(_ value: Double?, forKey key: Key) { add(Double.self, key) }
        mutating func encodeIfPresent(_ value: Int?, forKey key: Key) { add(Int.self, key) }
        mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) { add(Int64.self, key) }
        mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) { add(T.self, key) }
        private func add(_ type: Any.Type, _ key: Key) {
            record.add(key, type, nullable: true)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type, forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            record.add(key, Never.self, nullable: false)
            let nested = Record(keys: record.keys)
            record.nested[record.keys.name(key)] = nested
            return KeyedEncodingContainer(Keyed<NestedKey>(record: nested))
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            record.add(key, Never.self, nullable: false)
            return APIJSON.Unkeyed(node: APIJSON.Node(), keys: record.keys)
        }
        mutating func superEncoder() -> any Encoder { Recorder(record: record) }
        mutating func superEncoder(forKey key: Key) -> any Encoder { Recorder(record: Record(keys: record.keys)) }
    }
}
