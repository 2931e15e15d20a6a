import BeekonDevice

/// Writes the admin API's `Encodable` bodies as JSON: members in the order the type encodes
/// them, named in a key style (by default the body's own), a nil member as `null` (never left
/// out: every member is required in the document), numbers as `JSONWriter` writes them (whole
/// numbers without a point).
package enum APIJSON {
    package static func bytes(_ value: some Encodable, keys: APIKeyStyle? = nil, capacity: Int = 1024) -> [UInt8] {
        var json = JSONWriter(capacity: capacity)
        write(value, keys: keys, to: &json)
        return json.bytes
    }

    /// Writes `value` as the next value of `json`.
    static func write(_ value: some Encodable, keys: APIKeyStyle? = nil, to json: inout JSONWriter) {
        let root = Node()
        do {
            try value.encode(to: NodeEncoder(node: root, keys: keys ?? APIKeyStyle.of(value)))
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
        let keys: APIKeyStyle
        var codingPath: [any CodingKey] = []
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            if case .object = node.content {} else { node.content = .object([]) }
            return KeyedEncodingContainer(Keyed<Key>(node: node, keys: keys))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            if case .array = node.content {} else { node.content = .array([]) }
            return Unkeyed(node: node, keys: keys)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer { Single(node: node, keys: keys) }
    }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let node: Node
        let keys: APIKeyStyle
        var codingPath: [any CodingKey] { [] }

        private func member(_ key: Key) -> Node { node.append(keys.name(key)) }

        mutating func encodeNil(forKey key: Key) { member(key).content = .null }
        mutating func encode(_ value: Bool, forKey key: Key) { member(key).content = .bool(value) }
        mutating func encode(_ value: String, forKey key: Key) {
            member(key).content = .string(value)
        }
        mutating func encode(_ value: Double, forKey key: Key) {
            member(key).content = .number(value)
        }
        mutating func encode(_ value: Int, forKey key: Key) {
            member(key).content = .integer(Int64(value))
        }
        mutating func encode(_ value: Int64, forKey key: Key) {
            member(key).content = .integer(value)
        }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            if let member = value as? any OmittableMember, member.isAbsent { return }
            try value.encode(to: NodeEncoder(node: member(key), keys: keys))
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
            try value.encode(to: NodeEncoder(node: member(key), keys: keys))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type, forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            NodeEncoder(node: member(key), keys: keys).container(keyedBy: keyType)
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            NodeEncoder(node: member(key), keys: keys).unkeyedContainer()
        }
        mutating func superEncoder() -> any Encoder { NodeEncoder(node: node, keys: keys) }
        mutating func superEncoder(forKey key: Key) -> any Encoder { NodeEncoder(node: member(key), keys: keys) }
    }

    struct Unkeyed: UnkeyedEncodingContainer {
        let node: Node
        let keys: APIKeyStyle
        var codingPath: [any CodingKey] { [] }
        var count: Int {
            if case .array(let items) = node.content { return items.count }
            return 0
        }

        mutating func encodeNil() { node.appendItem().content = .null }
        mutating func encode(_ value: String) { node.appendItem().content = .string(value) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            try value.encode(to: NodeEncoder(node: node.appendItem(), keys: keys))
        }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
            -> KeyedEncodingContainer<NestedKey>
        {
            NodeEncoder(node: node.appendItem(), keys: keys).container(keyedBy: keyType)
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            NodeEncoder(node: node.appendItem(), keys: keys).unkeyedContainer()
        }
        mutating func superEncoder() -> any Encoder { NodeEncoder(node: node.appendItem(), keys: keys) }
    }

    struct Single: SingleValueEncodingContainer {
        let node: Node
        let keys: APIKeyStyle
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
        mutating func encode<T: Encodable>(_ value: T) throws {
            try value.encode(to: NodeEncoder(node: node, keys: keys))
        }
    }
}
