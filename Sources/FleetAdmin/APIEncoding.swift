import BeekonDevice

/// Writes the admin API's `Encodable` bodies as JSON: members in the order the type encodes
/// them, a nil member as `null` (never left out: every member is required in the document),
/// numbers as `JSONWriter` writes them (whole numbers without a point).
enum APIJSON {
    static func bytes(_ value: some Encodable, capacity: Int = 1024) -> [UInt8] {
        var json = JSONWriter(capacity: capacity)
        write(value, to: &json)
        return json.bytes
    }

    /// Writes `value` as the next value of `json`.
    static func write(_ value: some Encodable, to json: inout JSONWriter) {
        let root = Node()
        do {
            try value.encode(to: NodeEncoder(node: root))
        } catch {
            // The bodies' encoders never throw; should one, the body says so rather than lie.
            root.content = .string("unencodable: \(error)")
        }
        root.write(to: &json)
    }

    /// A value being encoded: a tree, since `Encoder` hands out containers before their
    /// members are known (and a type may add members to an object it shares with another).
    final class Node {
        enum Content {
            case null
            case bool(Bool)
            case integer(Int64)
            case number(Double)
            case string(String)
            case array([Node])
            case object([(key: String, node: Node)])
        }

        var content: Content = .null

        func write(to json: inout JSONWriter) {
            switch content {
            case .null: json.null()
            case .bool(let value): json.bool(value)
            case .integer(let value): json.integer(value)
            case .number(let value): json.number(value)
            case .string(let value): json.string(value)
            case .array(let items):
                json.beginArray()
                for item in items { item.write(to: &json) }
                json.endArray()
            case .object(let members):
                json.beginObject()
                for member in members {
                    json.key(member.key)
                    member.node.write(to: &json)
                }
                json.endObject()
            }
        }

        func append(_ key: String) -> Node {
            let child = Node()
            if case .object(var members) = content {
                content = .null  // Keeps the array unique while it grows.
                members.append((key, child))
                content = .object(members)
            } else {
                content = .object([(key, child)])
            }
            return child
        }

        func appendItem() -> Node {
            let child = Node()
            if case .array(var items) = content {
                content = .null
                items.append(child)
                content = .array(items)
            } else {
                content = .array([child])
            }
            return child
        }
    }

    struct NodeEncoder: Encoder {
        let node: Node
        var codingPath: [any CodingKey] = []
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            if case .object = node.content {} else { node.content = .object([]) }
            return KeyedEncodingContainer(Keyed<Key>(node: node))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            if case .array = node.content {} else { node.content = .array([]) }
            return Unkeyed(node: node)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer { Single(node: node) }
    }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let node: Node
        var codingPath: [any CodingKey] { [] }

        mutating func encodeNil(forKey key: Key) { node.append(key.stringValue).content = .null }
        mutating func encode(_ value: Bool, forKey key: Key) { node.append(key.stringValue).content = .bool(value) }
        mutating func encode(_ value: String, forKey key: Key) {
            node.append(key.stringValue).content = .string(value)
        }
        mutating func encode(_ value: Double, forKey key: Key) {
            node.append(key.stringValue).content = .number(value)
        }
        mutating func encode(_ value: Int, forKey key: Key) {
            node.append(key.stringValue).content = .integer(Int64(value))
        }
        mutating func encode(_ value: Int64, forKey key: Key) {
            node.append(key.stringValue).content = .integer(value)
        }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            if let member = value as? any OmittableMember, member.isAbsent { return }
            try value.encode(to: NodeEncoder(node: node.append(key.stringValue)))
        }
        // Synthesized conformances call these for optional members: nil is written as null.
        mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws {
            try encodeIfPresent(value as (any Encodable)?, key)
        }
        mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws {
            try encodeIfPresent(value as (any Encodable)?, key)
        }
        mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws {
            try encodeIfPresent(value as (any Encodable)?, key)
        }
        mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws {
            try encodeIfPresent(value as (any Encodable)?, key)
        }
        mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws {
            try encodeIfPresent(value as (any Encodable)?, key)
        }
        mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
            try encodeIfPresent(value as (any Encodable)?, key)
        }
        private mutating func encodeIfPresent(_ value: (any Encodable)?, _ key: Key) throws {
            guard let value else { return encodeNil(forKey: key) }
            try value.encode(to: NodeEncoder(node: node.append(key.stringValue)))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type, forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            NodeEncoder(node: node.append(key.stringValue)).container(keyedBy: keyType)
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            NodeEncoder(node: node.append(key.stringValue)).unkeyedContainer()
        }
        mutating func superEncoder() -> any Encoder { NodeEncoder(node: node) }
        mutating func superEncoder(forKey key: Key) -> any Encoder { NodeEncoder(node: node.append(key.stringValue)) }
    }

    struct Unkeyed: UnkeyedEncodingContainer {
        let node: Node
        var codingPath: [any CodingKey] { [] }
        var count: Int {
            if case .array(let items) = node.content { return items.count }
            return 0
        }

        mutating func encodeNil() { node.appendItem().content = .null }
        mutating func encode(_ value: String) { node.appendItem().content = .string(value) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            try value.encode(to: NodeEncoder(node: node.appendItem()))
        }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
            -> KeyedEncodingContainer<NestedKey>
        {
            NodeEncoder(node: node.appendItem()).container(keyedBy: keyType)
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            NodeEncoder(node: node.appendItem()).unkeyedContainer()
        }
        mutating func superEncoder() -> any Encoder { NodeEncoder(node: node.appendItem()) }
    }

    struct Single: SingleValueEncodingContainer {
        let node: Node
        var codingPath: [any CodingKey] { [] }

        mutating func encodeNil() { node.content = .null }
        mutating func encode(_ value: Bool) { node.content = .bool(value) }
        mutating func encode(_ value: String) { node.content = .string(value) }
        mutating func encode(_ value: Double) { node.content = .number(value) }
        mutating func encode(_ value: Float) { node.content = .number(Double(value)) }
        mutating func encode(_ value: Int) { node.content = .integer(Int64(value)) }
        mutating func encode(_ value: Int8) { node.content = .integer(Int64(value)) }
        mutating func encode(_ value: Int16) { node.content = .integer(Int64(value)) }
        mutating func encode(_ value: Int32) { node.content = .integer(Int64(value)) }
        mutating func encode(_ value: Int64) { node.content = .integer(value) }
        mutating func encode(_ value: UInt) { node.content = .integer(Int64(clamping: value)) }
        mutating func encode(_ value: UInt8) { node.content = .integer(Int64(value)) }
        mutating func encode(_ value: UInt16) { node.content = .integer(Int64(value)) }
        mutating func encode(_ value: UInt32) { node.content = .integer(Int64(value)) }
        mutating func encode(_ value: UInt64) { node.content = .integer(Int64(clamping: value)) }
        mutating func encode<T: Encodable>(_ value: T) throws { try value.encode(to: NodeEncoder(node: node)) }
    }
}

/// Derives an `APIBody`'s members from what its `encode(to:)` does with an example value: each
/// member's name in order and its schema from its static type (`APIDescribed`), nullable when
/// encoded as an optional. A member of a type with no schema is recorded as
/// `undescribed` so the document test names it.
struct APISchemaRecorder {
    static let undescribed = "UNDESCRIBED"

    func members(of value: some Encodable) -> [APIMember] {
        let record = Record()
        try? value.encode(to: Recorder(record: record))
        return record.members
    }

    final class Record {
        var members: [APIMember] = []

        func add(_ name: String, _ type: Any.Type, nullable: Bool) {
            var schema: APISchema
            var required = true
            if let omittable = type as? any OmittableMember.Type {
                schema = omittable.wrappedSchema
                required = false
            } else if let described = type as? any APIDescribed.Type {
                schema = described.apiSchema
            } else {
                schema = APISchema(.anyObject, description: "\(APISchemaRecorder.undescribed) \(type)")
            }
            if nullable { schema.nullable = true }
            members.removeAll { $0.name == name }
            members.append(APIMember(name: name, schema: schema, required: required))
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
            APIJSON.Unkeyed(node: APIJSON.Node())
        }
        func singleValueContainer() -> any SingleValueEncodingContainer { APIJSON.Single(node: APIJSON.Node()) }
    }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let record: Record
        var codingPath: [any CodingKey] { [] }

        mutating func encodeNil(forKey key: Key) {
            record.add(key.stringValue, Never.self, nullable: true)
        }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) {
            record.add(key.stringValue, T.self, nullable: false)
        }
        mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) { add(Bool.self, key) }
        mutating func encodeIfPresent(_ value: String?, forKey key: Key) { add(String.self, key) }
        mutating func encodeIfPresent(_ value: Double?, forKey key: Key) { add(Double.self, key) }
        mutating func encodeIfPresent(_ value: Int?, forKey key: Key) { add(Int.self, key) }
        mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) { add(Int64.self, key) }
        mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) { add(T.self, key) }
        private func add(_ type: Any.Type, _ key: Key) {
            record.add(key.stringValue, type, nullable: true)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type, forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            record.add(key.stringValue, Never.self, nullable: false)
            return KeyedEncodingContainer(Keyed<NestedKey>(record: Record()))
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            record.add(key.stringValue, Never.self, nullable: false)
            return APIJSON.Unkeyed(node: APIJSON.Node())
        }
        mutating func superEncoder() -> any Encoder { Recorder(record: record) }
        mutating func superEncoder(forKey key: Key) -> any Encoder { Recorder(record: Record()) }
    }
}
