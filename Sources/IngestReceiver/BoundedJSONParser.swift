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

/// Why a body is not JSON the receiver will read: the byte offset and what is wrong there.
struct JSONProblem: Error, Sendable, Hashable, CustomStringConvertible {
    var offset: Int
    var reason: String

    var description: String { "\(reason) (at byte \(offset))" }
}

/// A strict RFC 8259 parser over UTF-8 bytes that counts as it goes and stops at the first
/// limit passed: nesting depth and the number of values. It never recurses (an explicit stack),
/// never copies the input, and refuses what a lenient parser would guess at: UTF-16 or a byte
/// order mark, invalid UTF-8, lone surrogates, duplicate keys, trailing data.
struct BoundedJSONParser {
    /// The deepest nesting accepted (the upload payload needs 3).
    var maxDepth: Int
    /// The most values (objects, arrays, strings, numbers, literals; keys not counted) accepted.
    var maxElements: Int

    /// The value in `bytes`, or the first problem.
    func parse(_ bytes: [UInt8]) throws(JSONProblem) -> JSONNode {
        try Self.checkEncoding(bytes)
        var result: Result<JSONNode, JSONProblem> = .failure(JSONProblem(offset: 0, reason: "empty body"))
        bytes.withUnsafeBufferPointer { buffer in
            var cursor = Cursor(bytes: buffer, maxDepth: maxDepth, maxElements: maxElements)
            do throws(JSONProblem) {
                let value = try cursor.document()
                result = .success(value)
            } catch {
                result = .failure(error)
            }
        }
        return try result.get()
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

    /// One pass over the bytes; containers under construction sit on `stack`.
    private struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        let maxDepth: Int
        let maxElements: Int
        var offset = 0
        var elements = 0

        init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, maxElements: Int) {
            self.bytes = bytes
            self.maxDepth = maxDepth
            self.maxElements = maxElements
        }

        /// A container being filled: its members so far, and the key awaiting a value.
        enum Frame {
            case array([JSONNode])
            case object([String: JSONNode], key: String?)
        }

        func fail(_ reason: String, at position: Int? = nil) -> JSONProblem {
            JSONProblem(offset: position ?? offset, reason: reason)
        }

        mutating func skipSpace() {
            while offset < bytes.count {
                switch bytes[offset] {
                case 0x20, 0x09, 0x0A, 0x0D: offset += 1
                default: return
                }
            }
        }

        mutating func count() throws(JSONProblem) {
            elements += 1
            if elements > maxElements {
                throw fail("more than \(maxElements) JSON values (the element limit)")
            }
        }

        mutating func expect(_ byte: UInt8, _ what: String) throws(JSONProblem) {
            skipSpace()
            guard offset < bytes.count, bytes[offset] == byte else { throw unexpected(what) }
            offset += 1
        }

        func unexpected(_ expected: String) -> JSONProblem {
            guard offset < bytes.count else { return fail("not valid JSON: ends early; expected \(expected)") }
            let byte = bytes[offset]
            let shown =
                byte >= 0x20 && byte < 0x7F
                ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
            return fail("not valid JSON: \(shown); expected \(expected)")
        }

        mutating func document() throws(JSONProblem) -> JSONNode {
            var stack: [Frame] = []
            var value: JSONNode
            while true {
                // Read one value, or open a container.
                skipSpace()
                guard offset < bytes.count else { throw unexpected("a value") }
                switch bytes[offset] {
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    try count()
                    guard stack.count < maxDepth else {
                        throw fail("JSON nested deeper than \(maxDepth) levels (the depth limit)")
                    }
                    let isObject = bytes[offset] == UInt8(ascii: "{")
                    offset += 1
                    skipSpace()
                    if offset < bytes.count, bytes[offset] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                        offset += 1
                        value = isObject ? .object([:]) : .array([])
                    } else if isObject {
                        stack.append(.object([:], key: try key()))
                        continue
                    } else {
                        stack.append(.array([]))
                        continue
                    }
                default:
                    try count()
                    value = try scalar()
                }
                // Hand the value to its container; close containers that end here.
                while true {
                    guard let frame = stack.popLast() else {
                        skipSpace()
                        guard offset == bytes.count else { throw fail("not valid JSON: data after the value") }
                        return value
                    }
                    skipSpace()
                    let next = offset < bytes.count ? bytes[offset] : 0
                    switch frame {
                    case .array(var items):
                        items.append(value)
                        if next == UInt8(ascii: ",") {
                            offset += 1
                            stack.append(.array(items))
                        } else if next == UInt8(ascii: "]") {
                            offset += 1
                            value = .array(items)
                            continue
                        } else {
                            throw unexpected("',' or ']'")
                        }
                    case .object(var members, let pending):
                        if let pending { members[pending] = value }
                        if next == UInt8(ascii: ",") {
                            offset += 1
                            let start = offset
                            let name = try key()
                            if members[name] != nil {
                                throw fail("duplicate key \"\(name.prefix(40))\" in an object", at: start)
                            }
                            stack.append(.object(members, key: name))
                        } else if next == UInt8(ascii: "}") {
                            offset += 1
                            value = .object(members)
                            continue
                        } else {
                            throw unexpected("',' or '}'")
                        }
                    }
                    break
                }
            }
        }

        /// `"name":`, leaving the cursor at the value.
        mutating func key() throws(JSONProblem) -> String {
            skipSpace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else {
                throw unexpected("a key (a string)")
            }
            let name = try string()
            try expect(UInt8(ascii: ":"), "':'")
            return name
        }

        mutating func scalar() throws(JSONProblem) -> JSONNode {
            switch bytes[offset] {
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"):
                try literal("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try literal("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try literal("null")
                return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
            default: throw unexpected("a value")
            }
        }

        mutating func literal(_ word: StaticString) throws(JSONProblem) {
            let count = word.utf8CodeUnitCount
            guard offset + count <= bytes.count,
                UnsafeBufferPointer(start: word.utf8Start, count: count).elementsEqual(bytes[offset..<offset + count])
            else { throw unexpected("\(word)") }
            offset += count
        }

        /// RFC 8259's number: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, as written.
        mutating func number() throws(JSONProblem) -> String {
            let start = offset
            func digits(_ cursor: inout Cursor) -> Int {
                let first = cursor.offset
                while cursor.offset < cursor.bytes.count, (0x30...0x39).contains(cursor.bytes[cursor.offset]) {
                    cursor.offset += 1
                }
                return cursor.offset - first
            }
            if bytes[offset] == UInt8(ascii: "-") { offset += 1 }
            let leading = offset
            guard digits(&self) > 0 else { throw unexpected("a digit") }
            if bytes[leading] == UInt8(ascii: "0"), offset - leading > 1 {
                throw fail("not valid JSON: a number with a leading zero", at: start)
            }
            if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
                offset += 1
                guard digits(&self) > 0 else { throw unexpected("a digit after '.'") }
            }
            if offset < bytes.count, bytes[offset] | 0x20 == UInt8(ascii: "e") {
                offset += 1
                if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") {
                    offset += 1
                }
                guard digits(&self) > 0 else { throw unexpected("a digit in the exponent") }
            }
            guard offset - start <= 64 else { throw fail("a number longer than 64 characters", at: start) }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
        }

        /// A string from its opening quote: escapes decoded, UTF-8 validated, controls refused.
        mutating func string() throws(JSONProblem) -> String {
            let start = offset
            offset += 1
            // The common case: no escapes, so the bytes are the string.
            var plainEnd = offset
            while plainEnd < bytes.count, bytes[plainEnd] != UInt8(ascii: "\""), bytes[plainEnd] != UInt8(ascii: "\\"),
                bytes[plainEnd] >= 0x20
            {
                plainEnd += 1
            }
            var scalars: [UInt8] = []
            var run = offset
            if plainEnd < bytes.count, bytes[plainEnd] == UInt8(ascii: "\"") {
                offset = plainEnd + 1
                return try text(UnsafeBufferPointer(rebasing: bytes[run..<plainEnd]), at: run)
            }
            while true {
                guard offset < bytes.count else { throw fail("not valid JSON: a string that never ends", at: start) }
                let byte = bytes[offset]
                if byte == UInt8(ascii: "\"") {
                    scalars.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<offset]))
                    offset += 1
                    return try scalars.withUnsafeBufferPointer { buffer throws(JSONProblem) in
                        try text(buffer, at: start)
                    }
                }
                if byte < 0x20 {
                    throw fail("not valid JSON: a control character (0x\(String(byte, radix: 16))) inside a string")
                }
                guard byte == UInt8(ascii: "\\") else {
                    offset += 1
                    continue
                }
                scalars.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<offset]))
                offset += 1
                guard offset < bytes.count else { throw fail("not valid JSON: a string that never ends", at: start) }
                let escape = bytes[offset]
                offset += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escape)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xD800..<0xDC00).contains(code) {
                        guard offset + 1 < bytes.count, bytes[offset] == UInt8(ascii: "\\"),
                            bytes[offset + 1] == UInt8(ascii: "u")
                        else { throw fail("not valid JSON: a lone UTF-16 surrogate \\u\(String(code, radix: 16))") }
                        offset += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else {
                            throw fail("not valid JSON: a lone UTF-16 surrogate \\u\(String(code, radix: 16))")
                        }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00..<0xE000).contains(code) {
                        throw fail("not valid JSON: a lone UTF-16 surrogate \\u\(String(code, radix: 16))")
                    }
                    scalars.append(contentsOf: Array(String(Character(Unicode.Scalar(code)!)).utf8))
                default:
                    let shown = Character(Unicode.Scalar(escape))
                    throw fail("not valid JSON: an unknown escape \\\(shown)", at: offset - 2)
                }
                run = offset
            }
        }

        mutating func hex4() throws(JSONProblem) -> UInt32 {
            guard offset + 4 <= bytes.count else { throw fail("not valid JSON: \\u needs four hex digits") }
            var code: UInt32 = 0
            for byte in bytes[offset..<offset + 4] {
                guard let digit = Character(Unicode.Scalar(byte)).hexDigitValue else {
                    throw fail("not valid JSON: \\u needs four hex digits")
                }
                code = code << 4 | UInt32(digit)
            }
            offset += 4
            return code
        }

        /// The bytes as a String when they are valid UTF-8.
        func text(_ utf8: UnsafeBufferPointer<UInt8>, at position: Int) throws(JSONProblem) -> String {
            guard let text = String(validating: utf8, as: UTF8.self) else {
                throw fail("invalid UTF-8 in a string", at: position)
            }
            return text
        }
    }
}
