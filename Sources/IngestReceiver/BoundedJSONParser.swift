import JSON

/// A JSON value as the receiver reads it: numbers keep their text, so an integer field is read
/// exactly (`1e16`, `1.0` and `2^63` are told apart from integers), never through a `Double`.
indirect enum JSONNode: Sendable, Hashable {
    case null
    case bool(Bool)
    /// The number as written (valid RFC 8259 number syntax).
    case number(String)
    case string(String)
    case array([JSONNode])
    case object([String: JSONNode])

    /// What kind of value this is, for messages: `a string "abc"`, `the number 1.5`.
    var kind: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number(let text): "the number \(text.prefix(40))"
        case .string(let text): "the string \"\(text.prefix(40))\""
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// The receiver's reading of a body: the encoding checked first (UTF-8 without a byte order mark),
/// then the one JSON parser (`JSONParser`) with the receiver's limits, into `JSONNode`s whose
/// objects refuse a key given twice.
struct BoundedJSONParser {
    /// The deepest nesting accepted (the upload payload needs 3).
    var maxDepth: Int
    /// The most values (objects, arrays, strings, numbers, literals; keys not counted) accepted.
    var maxElements: Int

    /// The value in `bytes`, or the first problem.
    func parse(_ bytes: [UInt8]) throws(JSONProblem) -> JSONNode {
        try Self.checkEncoding(bytes)
        var builder = NodeBuilder()
        do throws(JSONSyntaxError) {
            return try JSONParser(maxDepth: maxDepth, maxElements: maxElements).parse(bytes, into: &builder)
        } catch {
            throw JSONProblem(offset: error.offset, reason: error.reason)
        }
    }

    /// Refuses UTF-16/32 (with a byte order mark, or without one: NUL bytes) and a UTF-8 BOM,
    /// naming what the body looks like.
    static func checkEncoding(_ bytes: [UInt8]) throws(JSONProblem) {
        if bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE]) {
            throw JSONProblem(offset: 0, reason: "UTF-16 (it starts with a byte order mark); expected UTF-8")
        }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            throw JSONProblem(offset: 0, reason: "starts with a UTF-8 byte order mark; expected UTF-8 without one")
        }
        if let zero = bytes.firstIndex(of: 0) {
            throw JSONProblem(
                offset: zero, reason: "a NUL byte: UTF-16 or UTF-32 without a byte order mark?; expected UTF-8")
        }
    }

    /// `JSONNode`s: objects by key, a key given twice refused where it is given again.
    private struct NodeBuilder: JSONBuilder {
        func mark(_ offset: Int) {}

        func scalar(_ scalar: JSONScalar, at mark: Void) -> JSONNode {
            switch scalar {
            case .null: .null
            case .bool(let flag): .bool(flag)
            case .number(let text): .number(text)
            case .string(let text): .string(text)
            }
        }

        func array(_ items: [JSONNode], at mark: Void) -> JSONNode {
            .array(items)
        }

        func object(_ members: [JSONMember<JSONNode>], at mark: Void) throws(JSONSyntaxError) -> JSONNode {
            var object = [String: JSONNode](minimumCapacity: members.count)
            for member in members where object.updateValue(member.value, forKey: member.key) != nil {
                throw JSONSyntaxError(offset: member.keyOffset, kind: .duplicateKey(member.key))
            }
            return .object(object)
        }
    }
}
