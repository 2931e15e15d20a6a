import BeekonDevice
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

    /// Parses `bytes` as one JSON value; nesting deeper than `maxDepth` is refused.
    static func parse(_ bytes: [UInt8], maxDepth: Int = 64) throws(SyntaxError) -> JSONValue {
        var parser = Parser(bytes: bytes, maxDepth: maxDepth)
        parser.skipSpace()
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.index == bytes.count else { throw parser.error("unexpected text after the value") }
        return value
    }

    private struct Parser {
        let bytes: [UInt8]
        let maxDepth: Int
        var index = 0

        init(bytes: [UInt8], maxDepth: Int) {
            self.bytes = bytes
            self.maxDepth = maxDepth
        }

        func error(_ message: String) -> SyntaxError {
            SyntaxError(message: "\(message) at byte \(index)")
        }

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        mutating func value(depth: Int) throws(SyntaxError) -> JSONValue {
            guard depth <= maxDepth else { throw error("nested too deeply") }
            guard index < bytes.count else { throw error("unexpected end") }
            switch bytes[index] {
            case UInt8(ascii: "{"): return try object(depth: depth)
            case UInt8(ascii: "["): return try array(depth: depth)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): return try literal("true", .bool(true))
            case UInt8(ascii: "f"): return try literal("false", .bool(false))
            case UInt8(ascii: "n"): return try literal("null", .null)
            default: return try number()
            }
        }

        mutating func literal(_ word: String, _ value: JSONValue) throws(SyntaxError) -> JSONValue {
            let expected = Array(word.utf8)
            guard index + expected.count <= bytes.count, Array(bytes[index..<index + expected.count]) == expected else {
                throw error("unexpected character")
            }
            index += expected.count
            return value
        }

        mutating func object(depth: Int) throws(SyntaxError) -> JSONValue {
            index += 1
            var members: [(key: String, value: JSONValue)] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            while true {
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                    throw error("expected a member name")
                }
                let key = try string()
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected `:`") }
                index += 1
                skipSpace()
                members.append((key, try value(depth: depth + 1)))
                skipSpace()
                guard index < bytes.count else { throw error("unexpected end") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                guard bytes[index] == UInt8(ascii: "}") else { throw error("expected `,` or `}`") }
                index += 1
                return .object(members)
            }
        }

        mutating func array(depth: Int) throws(SyntaxError) -> JSONValue {
            index += 1
            var items: [JSONValue] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(items)
            }
            while true {
                skipSpace()
                items.append(try value(depth: depth + 1))
                skipSpace()
                guard index < bytes.count else { throw error("unexpected end") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                guard bytes[index] == UInt8(ascii: "]") else { throw error("expected `,` or `]`") }
                index += 1
                return .array(items)
            }
        }

        mutating func string() throws(SyntaxError) -> String {
            index += 1
            var out: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return String(decoding: out, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { throw error("unexpected end") }
                    let escape = bytes[index]
                    index += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "u"):
                        var scalar = try hex4()
                        if (0xD800..<0xDC00).contains(scalar), index + 1 < bytes.count,
                            bytes[index] == UInt8(ascii: "\\"),
                            bytes[index + 1] == UInt8(ascii: "u")
                        {
                            index += 2
                            let low = try hex4()
                            guard (0xDC00..<0xE000).contains(low) else { throw error("bad surrogate pair") }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        }
                        guard let unicode = Unicode.Scalar(scalar) else { throw error("bad \\u escape") }
                        out.append(contentsOf: Array(String(Character(unicode)).utf8))
                    default:
                        throw error("bad escape")
                    }
                case 0..<0x20:
                    throw error("control character in a string")
                default:
                    out.append(byte)
                }
            }
            throw error("unterminated string")
        }

        mutating func hex4() throws(SyntaxError) -> UInt32 {
            guard index + 4 <= bytes.count,
                let value = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
            else { throw error("bad \\u escape") }
            index += 4
            return value
        }

        mutating func number() throws(SyntaxError) -> JSONValue {
            let start = index
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
            let digitsStart = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            guard index > digitsStart else { throw error("unexpected character") }
            if bytes[digitsStart] == UInt8(ascii: "0"), index - digitsStart > 1 { throw error("leading zero") }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                let fraction = index
                while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
                guard index > fraction else { throw error("expected digits after `.`") }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                    index += 1
                }
                let exponent = index
                while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
                guard index > exponent else { throw error("expected exponent digits") }
            }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            guard let value = Double(text), value.isFinite else {
                throw error("number out of range")
            }
            return .number(value, text: text)
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
