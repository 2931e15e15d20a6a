import BeekonDevice
import JSON
import Yams

/// A parsed JSON value, strict (RFC 8259, no comments, no trailing commas), with member order
/// kept: request bodies are checked field by field, so the admin API can name the field that is
/// unknown or of the wrong type.
indirect enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// A number and its text as written, so whole numbers are checked exactly (never through
    /// a `Double` that rounds `2^63` or `1e16`) and written back unchanged.
    case number(Double, text: String)
    case string(String)
    case array([JSONValue])
    case object([(key: String, value: JSONValue)])

    static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        lhs.text == rhs.text
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(text)
    }

    /// The member named `key` of an object.
    subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.key == key }?.value
    }

    /// What kind of value this is, for messages (`a string`, `a number`).
    var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// The value written back as compact JSON (which YAML reads too).
    var text: String {
        var writer = JSONWriter(capacity: 256)
        write(to: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    func write(to writer: inout JSONWriter) {
        switch self {
        case .null: writer.null()
        case .bool(let value): writer.bool(value)
        case .number(_, let text): writer.number(text: text)
        case .string(let value): writer.string(value)
        case .array(let items):
            writer.beginArray()
            for item in items { item.write(to: &writer) }
            writer.endArray()
        case .object(let members):
            writer.beginObject()
            for member in members {
                writer.key(member.key)
                member.value.write(to: &writer)
            }
            writer.endObject()
        }
    }

    /// Why a text is not JSON, with the byte offset.
    struct SyntaxError: Error {
        var message: String
    }

    /// Parses `bytes` as one JSON value with the one parser (`JSONParser`); nesting deeper than
    /// `maxDepth` is refused, and a key given twice keeps its last value (as `subscript` reads).
    static func parse(_ bytes: [UInt8], maxDepth: Int = 64) throws(SyntaxError) -> JSONValue {
        var builder = Builder()
        do throws(JSONSyntaxError) {
            return try JSONParser(maxDepth: maxDepth).parse(bytes, into: &builder)
        } catch {
            throw SyntaxError(message: "\(error.problem) at byte \(error.offset)")
        }
    }

    /// `JSONValue`s: members in order, numbers with their text and value.
    private struct Builder: JSONBuilder {
        func mark(_ offset: Int) -> Int { offset }

        func scalar(_ scalar: JSONScalar, at offset: Int) throws(JSONSyntaxError) -> JSONValue {
            switch scalar {
            case .null: return .null
            case .bool(let flag): return .bool(flag)
            case .string(let text): return .string(text)
            case .number(let text):
                guard let value = Double(text), value.isFinite else {
                    throw JSONSyntaxError(offset: offset, kind: .numberNotFinite)
                }
                return .number(value, text: text)
            }
        }

        func array(_ items: [JSONValue], at offset: Int) -> JSONValue {
            .array(items)
        }

        func object(_ members: [JSONMember<JSONValue>], at offset: Int) -> JSONValue {
            .object(members.map { ($0.key, $0.value) })
        }
    }
}

extension JSONValue {
    /// The value as the YAML tree the fleet file's reader walks (strings stay quoted, so they
    /// are never read as numbers or booleans): request bodies read by the same reader as files.
    var node: Node {
        switch self {
        case .null: Node("null", Tag(.null))
        case .bool(let value): Node(value ? "true" : "false", Tag(.bool))
        case .number(_, let text): Node(text, Tag(.float))
        case .string(let value): Node(value, Tag(.str), .doubleQuoted)
        case .array(let items): Node(items.map(\.node))
        case .object(let members): Node(members.map { (Node($0.key), $0.value.node) })
        }
    }
}
