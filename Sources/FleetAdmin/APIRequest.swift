import BeekonDevice
import FleetDescription
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

/// One shape of a request body: the members it needs, and those it may add.
struct APIRequestForm: Sendable {
    var required: [String]
    var optional: [String] = []
}

/// A member type that reads itself from its JSON value, naming `field` when it refuses it: a
/// number in its range, a warp, a raw value passed on to another reader.
protocol BodyReadable: Decodable, APIDescribed {
    static func read(_ value: JSONValue, field: String) throws(APIError) -> Self
}

extension BodyReadable {
    /// Outside `BodyDecoder` a member is read from the JSON its decoder holds as text.
    init(from decoder: any Decoder) throws {
        throw APIError.badRequest("\(Self.self) is read by the admin's request reader only")
    }
}

/// What a `Ranged` number's range is.
protocol NumberField: Sendable {
    static var range: NumberRange { get }
}

/// A number in its field's one range (whole when the range is): anything else is refused naming
/// the field, the value and the range.
struct Ranged<Field: NumberField>: BodyReadable, Sendable {
    var value: Double

    static func read(_ value: JSONValue, field: String) throws(APIError) -> Ranged {
        guard case .number(_, let text) = value else { throw .badType(field, range: Field.range, got: value) }
        do throws(NumberProblem) {
            return Ranged(
                value: Field.range.isInteger ? Double(try Field.range.readInteger(text)) : try Field.range.read(text))
        } catch {
            throw .badNumber(field, error)
        }
    }

    static var apiSchema: APISchema {
        var schema = APISchema(Field.range.isInteger ? .integer : .number)
        schema.minimum = Field.range.lower
        schema.maximum = Field.range.upper
        return schema
    }
}

/// A member passed on as it came, to a reader of its own (a group spec, an action's params).
struct RawMember: BodyReadable, Sendable {
    var value: JSONValue

    static func read(_ value: JSONValue, field: String) -> RawMember { RawMember(value: value) }
    static var apiSchema: APISchema { APISchema(.anyObject) }
}

/// A warp: a number in `FleetFile.warpRange`, or the string `max`.
struct WarpField: BodyReadable, Sendable {
    var warp: Warp

    static func read(_ value: JSONValue, field: String) throws(APIError) -> WarpField {
        switch value {
        case .string(Warp.maxWord):
            return WarpField(warp: .max)
        case .number(_, let text):
            do throws(NumberProblem) {
                return WarpField(warp: try Warp.read(text))
            } catch {
                throw .badNumber(field, error)
            }
        default:
            throw .badType(field, number: "\(FleetFile.warpRange) or \"\(Warp.maxWord)\"", got: value)
        }
    }

    static var apiSchema: APISchema {
        var rate = APISchema(.number)
        rate.minimum = FleetFile.warpRange.lower
        rate.maximum = FleetFile.warpRange.upper
        return APISchema(.oneOf([rate, APISchema(.string(oneOf: [Warp.maxWord]))]))
    }
}

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

/// Derives a request's members from what its `init(from:)` asks for: each key in order with the
/// schema of the type asked (`APIDescribed`), nullable, since null is as absent. Every member
/// is answered absent, so the whole body is walked.
struct APIRequestRecorder: Decoder {
    let record: Record

    /// The members, as the response recorder records them (which shapes need which is `forms`').
    typealias Record = APISchemaRecorder.Record

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Keyed<Key>(record: record))
    }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw APIError.badRequest("not an object") }
    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw APIError.badRequest("not an object")
    }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let record: Record
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { [] }

        func contains(_ key: Key) -> Bool { false }
        func decodeNil(forKey key: Key) -> Bool { true }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            record.add(key.stringValue, type, nullable: true)
            throw APIError.badRequest("a request member is optional: `\(key.stringValue)`")
        }
        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) -> T? {
            record.add(key.stringValue, type, nullable: true)
            return nil
        }
        func decodeIfPresent(_ type: String.Type, forKey key: Key) -> String? {
            record.add(key.stringValue, type, nullable: true)
            return nil
        }
        func decodeIfPresent(_ type: Bool.Type, forKey key: Key) -> Bool? {
            record.add(key.stringValue, type, nullable: true)
            return nil
        }
        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            throw APIError.badRequest("not read here")
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            throw APIError.badRequest("not read here")
        }
        func superDecoder() -> any Decoder { APIRequestRecorder(record: record) }
        func superDecoder(forKey key: Key) -> any Decoder { APIRequestRecorder(record: Record()) }
    }
}
