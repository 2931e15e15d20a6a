/// Reads a `JSONValue` into a `Decodable` type the way the admin API refuses a body: a member of
/// the wrong type is `bad_type` naming it (`selector.ids[1]`), a member nobody asked for is
/// `unknown_field` with the ones that would do, a `BodyReadable` member reads itself.
struct BodyDecoder: Decoder {
    let members: [(key: String, value: JSONValue)]
    let path: String
    let asked: Asked

    final class Asked {
        var keys: Set<String> = []
    }

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// `value` (an object) as `type`, its unknown members refused.
    static func object<T: Decodable>(_ type: T.Type, from value: JSONValue, path: String) throws(APIError) -> T {
        guard case .object(let members) = value else {
            throw .badType(String(path.dropLast()), expected: "an object", got: value)
        }
        let decoder = BodyDecoder(members: members, path: path, asked: Asked())
        let decoded: T
        do {
            decoded = try T(from: decoder)
        } catch let error as APIError {
            throw error
        } catch {
            throw .badRequest("\(error)")
        }
        if let unknown = members.first(where: { !decoder.asked.keys.contains($0.key) }) {
            throw .unknownField(path + unknown.key, allowed: decoder.asked.keys.sorted())
        }
        return decoded
    }

    /// A member's value as `type`.
    static func value<T: Decodable>(_ type: T.Type, _ value: JSONValue, field: String) throws(APIError) -> T {
        let read: Any
        if let readable = type as? any BodyReadable.Type {
            read = try readable.read(value, field: field)
        } else if T.self == String.self {
            guard case .string(let text) = value else { throw .badType(field, expected: "a string", got: value) }
            read = text
        } else if T.self == Bool.self {
            guard case .bool(let flag) = value else { throw .badType(field, expected: "true or false", got: value) }
            read = flag
        } else if T.self == [String].self {
            guard case .array(let items) = value else {
                throw .badType(field, expected: "an array of strings", got: value)
            }
            var texts: [String] = []
            for (index, item) in items.enumerated() {
                guard case .string(let text) = item else {
                    throw .badType("\(field)[\(index)]", expected: "a string", got: item)
                }
                texts.append(text)
            }
            read = texts
        } else {
            read = try object(type, from: value, path: field + ".")
        }
        guard let typed = read as? T else { throw .badRequest("`\(field)` cannot be read as \(T.self)", field: field) }
        return typed
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Keyed<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw APIError.badRequest("a request body is an object")
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw APIError.badRequest("a request body is an object")
    }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let decoder: BodyDecoder
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { decoder.members.compactMap { Key(stringValue: $0.key) } }

        /// The member's value, null as absent; the key is asked for either way.
        private func member(_ key: Key) -> JSONValue? {
            decoder.asked.keys.insert(key.stringValue)
            guard let member = decoder.members.last(where: { $0.key == key.stringValue }), member.value != .null else {
                return nil
            }
            return member.value
        }

        func contains(_ key: Key) -> Bool { member(key) != nil }
        func decodeNil(forKey key: Key) -> Bool { member(key) == nil }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            guard let value = member(key) else {
                throw APIError.badRequest(
                    "`\(decoder.path + key.stringValue)` is required", field: decoder.path + key.stringValue)
            }
            return try BodyDecoder.value(type, value, field: decoder.path + key.stringValue)
        }

        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            guard let value = member(key) else { return nil }
            return try BodyDecoder.value(type, value, field: decoder.path + key.stringValue)
        }

        // The concrete overloads a synthesized `init(from:)` calls, each to the generic one's rules.
        func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try optional(type, key) }
        func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try optional(type, key) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try required(type, key) }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try required(type, key) }
        private func optional<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T? {
            guard let value = member(key) else { return nil }
            return try BodyDecoder.value(type, value, field: decoder.path + key.stringValue)
        }
        private func required<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
            guard let value = try optional(type, key) else {
                throw APIError.badRequest(
                    "`\(decoder.path + key.stringValue)` is required", field: decoder.path + key.stringValue)
            }
            return value
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            throw APIError.badRequest("`\(decoder.path + key.stringValue)` cannot be read here")
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            throw APIError.badRequest("`\(decoder.path + key.stringValue)` cannot be read here")
        }
        func superDecoder() throws -> any Decoder { decoder }
        func superDecoder(forKey key: Key) throws -> any Decoder { decoder }
    }
}
