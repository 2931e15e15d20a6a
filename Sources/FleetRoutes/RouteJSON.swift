/// A JSON value with the line and column where it starts.
///
/// GeoJSON errors must point into the file, and `JSONSerialization` forgets positions, so route
/// files are read by this small reader instead.
struct RouteJSON {
    package indirect enum Value {
        case object([(key: String, value: RouteJSON)])
        case array([RouteJSON])
        case string(String)
        case number(Double)
        case bool(Bool)
        case null
    }

    package var value: Value
    package var position: RouteSourcePosition

    /// The member named `key` of an object (the first, if repeated); nil otherwise.
    package subscript(key: String) -> RouteJSON? {
        guard case .object(let members) = value else { return nil }
        return members.first { $0.key == key }?.value
    }

    package var string: String? {
        if case .string(let text) = value { return text }
        return nil
    }

    package var array: [RouteJSON]? {
        if case .array(let items) = value { return items }
        return nil
    }

    package var number: Double? {
        if case .number(let number) = value { return number }
        return nil
    }

    /// A short name of the value's kind, for error messages.
    package var kind: String {
        switch value {
        case .object: "an object"
        case .array: "an array"
        case .string(let text): "the string \"\(text)\""
        case .number(let number): "the number \(number)"
        case .bool(let flag): "\(flag)"
        case .null: "null"
        }
    }

    /// Parses a whole JSON document from UTF-8 `bytes`, naming `file` in errors.
    package static func parse(_ bytes: [UInt8], file: String) throws(RouteError) -> RouteJSON {
        var reader = RouteJSONReader(bytes: bytes, file: file)
        return try reader.document()
    }
}

/// The recursive-descent reader behind `RouteJSON.parse`.
struct RouteJSONReader {
    /// Deeper nesting than any GeoJSON needs; the limit keeps hostile input from exhausting the stack.
    static let maximumDepth = 256

    private let bytes: [UInt8]
    private let file: String
    private var index = 0
    private var cursor = RouteSourceCursor()
    private var depth = 0

    package init(bytes: [UInt8], file: String) {
        self.bytes = bytes
        self.file = file
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
    }

    mutating func document() throws(RouteError) -> RouteJSON {
        skipSpace()
        let root = try value()
        skipSpace()
        guard index == bytes.count else { throw unexpected("the end of the document") }
        return root
    }

    private mutating func value() throws(RouteError) -> RouteJSON {
        let start = cursor.position
        guard index < bytes.count else { throw unexpected("a JSON value") }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            return RouteJSON(value: .object(try object()), position: start)
        case UInt8(ascii: "["):
            return RouteJSON(value: .array(try array()), position: start)
        case UInt8(ascii: "\""):
            return RouteJSON(value: .string(try string()), position: start)
        case UInt8(ascii: "t"):
            try literal("true")
            return RouteJSON(value: .bool(true), position: start)
        case UInt8(ascii: "f"):
            try literal("false")
            return RouteJSON(value: .bool(false), position: start)
        case UInt8(ascii: "n"):
            try literal("null")
            return RouteJSON(value: .null, position: start)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return RouteJSON(value: .number(try number()), position: start)
        default:
            throw unexpected("a JSON value")
        }
    }

    private mutating func object() throws(RouteError) -> [(key: String, value: RouteJSON)] {
        try enter()
        step()
        var members: [(key: String, value: RouteJSON)] = []
        skipSpace()
        if peek(UInt8(ascii: "}")) {
            step()
            depth -= 1
            return members
        }
        while true {
            skipSpace()
            guard peek(UInt8(ascii: "\"")) else { throw unexpected("a member name in quotes") }
            let key = try string()
            skipSpace()
            guard peek(UInt8(ascii: ":")) else { throw unexpected("':' after a member name") }
            step()
            skipSpace()
            members.append((key, try value()))
            skipSpace()
            if peek(UInt8(ascii: ",")) {
                step()
                continue
            }
            guard peek(UInt8(ascii: "}")) else { throw unexpected("',' or '}'") }
            step()
            depth -= 1
            return members
        }
    }

    private mutating func array() throws(RouteError) -> [RouteJSON] {
        try enter()
        step()
        var items: [RouteJSON] = []
        skipSpace()
        if peek(UInt8(ascii: "]")) {
            step()
            depth -= 1
            return items
        }
        while true {
            skipSpace()
            items.append(try value())
            skipSpace()
            if peek(UInt8(ascii: ",")) {
                step()
                continue
            }
            guard peek(UInt8(ascii: "]")) else { throw unexpected("',' or ']'") }
            step()
            depth -= 1
            return items
        }
    }

    private mutating func string() throws(RouteError) -> String {
        let start = cursor.position
        step()
        var text: [UInt8] = []
        while true {
            guard index < bytes.count else {
                throw RouteError(
                    file: file, at: start, problem: "a string is never closed",
                    expected: "a closing \"")
            }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                step()
                return String(decoding: text, as: UTF8.self)
            }
            guard byte >= 0x20 else { throw unexpected("\\n or another escape in a string") }
            guard byte == UInt8(ascii: "\\") else {
                text.append(byte)
                step()
                continue
            }
            step()
            guard index < bytes.count else { throw unexpected("an escape character") }
            let escape = bytes[index]
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escape)
            case UInt8(ascii: "b"): text.append(0x08)
            case UInt8(ascii: "f"): text.append(0x0C)
            case UInt8(ascii: "n"): text.append(0x0A)
            case UInt8(ascii: "r"): text.append(0x0D)
            case UInt8(ascii: "t"): text.append(0x09)
            case UInt8(ascii: "u"):
                step()
                var scalar = try hex4()
                if (0xD800..<0xDC00).contains(scalar), peek(UInt8(ascii: "\\")),
                    index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u")
                {
                    step()
                    step()
                    let low = try hex4()
                    if (0xDC00..<0xE000).contains(low) {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                }
                // A lone surrogate cannot be a character; it becomes U+FFFD as decoders do.
                let character = Unicode.Scalar(scalar) ?? "\u{FFFD}"
                text.append(contentsOf: Array(String(Character(character)).utf8))
                continue
            default:
                throw unexpected("one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u")
            }
            step()
        }
    }

    private mutating func hex4() throws(RouteError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.count else { throw unexpected("four hex digits") }
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"):
                digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"):
                digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw unexpected("four hex digits")
            }
            value = value * 16 + digit
            step()
        }
        return value
    }

    private mutating func number() throws(RouteError) -> Double {
        let start = cursor.position
        let first = index
        if peek(UInt8(ascii: "-")) { step() }
        guard digits() > 0 else { throw unexpected("a digit") }
        if peek(UInt8(ascii: ".")) {
            step()
            guard digits() > 0 else { throw unexpected("a digit after '.'") }
        }
        if peek(UInt8(ascii: "e")) || peek(UInt8(ascii: "E")) {
            step()
            if peek(UInt8(ascii: "+")) || peek(UInt8(ascii: "-")) { step() }
            guard digits() > 0 else { throw unexpected("a digit in the exponent") }
        }
        let text = String(decoding: bytes[first..<index], as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw RouteError(
                file: file, at: start, problem: "\(text) is too large", expected: "a finite number")
        }
        return value
    }

    private mutating func digits() -> Int {
        var count = 0
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"),
            bytes[index] <= UInt8(ascii: "9")
        {
            step()
            count += 1
        }
        return count
    }

    private mutating func literal(_ word: String) throws(RouteError) {
        for byte in word.utf8 {
            guard peek(byte) else { throw unexpected("a JSON value") }
            step()
        }
    }

    private mutating func enter() throws(RouteError) {
        depth += 1
        guard depth <= Self.maximumDepth else {
            throw RouteError(
                file: file, at: cursor.position, problem: "arrays and objects nest too deeply",
                expected: "at most \(Self.maximumDepth) levels")
        }
    }

    private func unexpected(_ expected: String) -> RouteError {
        guard index < bytes.count else {
            return RouteError(
                file: file, at: cursor.position, problem: "unexpected end of file",
                expected: expected)
        }
        let byte = bytes[index]
        let shown =
            byte >= 0x21 && byte < 0x7F
            ? "'\(Character(Unicode.Scalar(byte)))'" : String(format: byte)
        return RouteError(
            file: file, at: cursor.position, problem: "unexpected \(shown)", expected: expected)
    }

    private func peek(_ byte: UInt8) -> Bool {
        index < bytes.count && bytes[index] == byte
    }

    private mutating func skipSpace() {
        while index < bytes.count,
            bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D
                || bytes[index] == 0x09
        {
            step()
        }
    }

    private mutating func step() {
        cursor.advance(over: bytes[index])
        index += 1
    }
}

extension String {
    /// How an unprintable byte is shown in an error: `byte 0x0C`.
    fileprivate init(format byte: UInt8) {
        let hex = String(byte, radix: 16, uppercase: true)
        self = "byte 0x" + (hex.count < 2 ? "0" + hex : hex)
    }
}
