/// A scalar as the parser read it; numbers keep their text, so a reader can take an integer
/// exactly (`1e16`, `1.0` and `2^63` told apart from integers) rather than through a `Double`.
public enum JSONScalar: Sendable, Hashable {
    case null
    case bool(Bool)
    /// The number as written (valid RFC 8259 number syntax).
    case number(String)
    case string(String)
}

/// An object's member as read, in document order, with where its key starts.
public struct JSONMember<Value> {
    public var key: String
    /// The byte offset of the key's opening quote.
    public var keyOffset: Int
    public var value: Value

    @inlinable
    public init(key: String, keyOffset: Int, value: Value) {
        self.key = key
        self.keyOffset = keyOffset
        self.value = value
    }
}

extension JSONMember: Sendable where Value: Sendable {}

/// Makes a reader's own tree from what the parser reads: each reader keeps what it needs
/// (members in order or by key, numbers as text or as `Double`, positions as byte offsets or as
/// lines and columns) from the one grammar.
public protocol JSONBuilder {
    associatedtype Value
    /// Where a value starts, as the reader keeps it.
    associatedtype Mark

    /// Called as each value starts, in document order (so a reader can count lines as it goes).
    mutating func mark(_ offset: Int) -> Mark
    mutating func scalar(_ scalar: JSONScalar, at mark: Mark) throws(JSONSyntaxError) -> Value
    mutating func array(_ items: [Value], at mark: Mark) throws(JSONSyntaxError) -> Value
    /// An object's members in document order; a key given twice is the reader's to refuse or keep.
    mutating func object(_ members: [JSONMember<Value>], at mark: Mark) throws(JSONSyntaxError) -> Value
}

/// The one JSON parser: strict RFC 8259 over UTF-8 bytes, counting as it goes and stopping at
/// the first limit passed (nesting depth, number of values, a number's length). It never
/// recurses (an explicit stack), never copies the input, and refuses what a lenient parser
/// would guess at: invalid UTF-8, lone surrogates, control characters in strings, leading
/// zeros, trailing data. The request bodies of the admin API and the receiver and route files
/// are all read by it, each into its own tree (`JSONBuilder`).
public struct JSONParser: Sendable {
    /// The deepest nesting accepted.
    public var maxDepth: Int
    /// The most values (objects, arrays, strings, numbers, literals; keys not counted) accepted.
    public var maxElements: Int
    /// The longest number accepted, in characters.
    public var maxNumberLength: Int

    @inlinable
    public init(maxDepth: Int, maxElements: Int = .max, maxNumberLength: Int = 64) {
        self.maxDepth = maxDepth
        self.maxElements = maxElements
        self.maxNumberLength = maxNumberLength
    }

    /// The value in `bytes`, built by `builder`, or the first problem. Inlinable, as everything
    /// it calls, so each reader's builder is specialized into the parser across modules (a
    /// generic parse through the builder's witness table took 1.7 times as long).
    @inlinable
    public func parse<Builder: JSONBuilder>(
        _ bytes: [UInt8], into builder: inout Builder
    ) throws(JSONSyntaxError) -> Builder.Value {
        try bytes.withUnsafeBufferPointer { buffer throws(JSONSyntaxError) in
            try parse(buffer, into: &builder)
        }
    }

    /// The value in `bytes`, built by `builder`, or the first problem.
    @inlinable
    public func parse<Builder: JSONBuilder>(
        _ bytes: UnsafeBufferPointer<UInt8>, into builder: inout Builder
    ) throws(JSONSyntaxError) -> Builder.Value {
        var cursor = Cursor(bytes: bytes, limits: self)
        return try cursor.document(&builder)
    }

    /// One pass over the bytes; containers under construction sit on a stack.
    @usableFromInline
    struct Cursor {
        @usableFromInline let bytes: UnsafeBufferPointer<UInt8>
        @usableFromInline let limits: JSONParser
        @usableFromInline var offset = 0
        @usableFromInline var elements = 0

        @inlinable
        init(bytes: UnsafeBufferPointer<UInt8>, limits: JSONParser) {
            self.bytes = bytes
            self.limits = limits
        }

        /// A container being filled: where it starts, its members so far, and the key awaiting
        /// a value.
        @usableFromInline
        enum Frame<Value, Mark> {
            case array(Mark, [Value])
            case object(Mark, [JSONMember<Value>], key: String, keyOffset: Int)
        }

        @inlinable
        func fail(_ kind: JSONSyntaxError.Kind, at position: Int? = nil) -> JSONSyntaxError {
            JSONSyntaxError(offset: position ?? offset, kind: kind)
        }

        @inlinable
        func unexpected(_ expected: String) -> JSONSyntaxError {
            guard offset < bytes.count else { return fail(.endsEarly(expected: expected)) }
            return fail(.unexpected(found: bytes[offset], expected: expected))
        }

        @inlinable
        mutating func skipSpace() {
            while offset < bytes.count {
                switch bytes[offset] {
                case 0x20, 0x09, 0x0A, 0x0D: offset += 1
                default: return
                }
            }
        }

        @inlinable
        mutating func count() throws(JSONSyntaxError) {
            elements += 1
            if elements > limits.maxElements { throw fail(.tooManyValues(limit: limits.maxElements)) }
        }

        @inlinable
        mutating func expect(_ byte: UInt8, _ what: String) throws(JSONSyntaxError) {
            skipSpace()
            guard offset < bytes.count, bytes[offset] == byte else { throw unexpected(what) }
            offset += 1
        }

        @inlinable
        mutating func document<Builder: JSONBuilder>(_ builder: inout Builder) throws(JSONSyntaxError)
            -> Builder.Value
        {
            var stack: [Frame<Builder.Value, Builder.Mark>] = []
            var value: Builder.Value
            while true {
                // Read one value, or open a container.
                skipSpace()
                guard offset < bytes.count else { throw unexpected("a value") }
                let mark = builder.mark(offset)
                switch bytes[offset] {
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    try count()
                    guard stack.count < limits.maxDepth else { throw fail(.tooDeep(limit: limits.maxDepth)) }
                    let isObject = bytes[offset] == UInt8(ascii: "{")
                    offset += 1
                    skipSpace()
                    if offset < bytes.count, bytes[offset] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                        offset += 1
                        value = isObject ? try builder.object([], at: mark) : try builder.array([], at: mark)
                    } else if isObject {
                        let keyOffset = offset
                        stack.append(.object(mark, [], key: try key(), keyOffset: keyOffset))
                        continue
                    } else {
                        stack.append(.array(mark, []))
                        continue
                    }
                default:
                    try count()
                    value = try builder.scalar(try scalar(), at: mark)
                }
                // Hand the value to its container; close containers that end here.
                while true {
                    guard let frame = stack.popLast() else {
                        skipSpace()
                        guard offset == bytes.count else { throw fail(.dataAfterValue) }
                        return value
                    }
                    skipSpace()
                    let next = offset < bytes.count ? bytes[offset] : 0
                    switch frame {
                    case .array(let start, var items):
                        items.append(value)
                        if next == UInt8(ascii: ",") {
                            offset += 1
                            stack.append(.array(start, items))
                        } else if next == UInt8(ascii: "]") {
                            offset += 1
                            value = try builder.array(items, at: start)
                            continue
                        } else {
                            throw unexpected("',' or ']'")
                        }
                    case .object(let start, var members, let pending, let pendingOffset):
                        members.append(JSONMember(key: pending, keyOffset: pendingOffset, value: value))
                        if next == UInt8(ascii: ",") {
                            offset += 1
                            skipSpace()
                            let keyOffset = offset
                            stack.append(.object(start, members, key: try key(), keyOffset: keyOffset))
                        } else if next == UInt8(ascii: "}") {
                            offset += 1
                            value = try builder.object(members, at: start)
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
        @inlinable
        mutating func key() throws(JSONSyntaxError) -> String {
            skipSpace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else {
                throw unexpected("a key (a string)")
            }
            let name = try string()
            try expect(UInt8(ascii: ":"), "':'")
            return name
        }

        @inlinable
        mutating func scalar() throws(JSONSyntaxError) -> JSONScalar {
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

        @inlinable
        mutating func literal(_ word: StaticString) throws(JSONSyntaxError) {
            let count = word.utf8CodeUnitCount
            guard offset + count <= bytes.count,
                UnsafeBufferPointer(start: word.utf8Start, count: count).elementsEqual(bytes[offset..<offset + count])
            else { throw unexpected("\(word)") }
            offset += count
        }

        /// RFC 8259's number: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, as written.
        @inlinable
        mutating func number() throws(JSONSyntaxError) -> String {
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
            if bytes[leading] == UInt8(ascii: "0"), offset - leading > 1 { throw fail(.leadingZero, at: start) }
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
            guard offset - start <= limits.maxNumberLength else {
                throw fail(.numberTooLong(limit: limits.maxNumberLength), at: start)
            }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
        }

        /// A string from its opening quote: escapes decoded, UTF-8 validated, controls refused.
        @inlinable
        mutating func string() throws(JSONSyntaxError) -> String {
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
                guard offset < bytes.count else { throw fail(.stringNeverEnds, at: start) }
                let byte = bytes[offset]
                if byte == UInt8(ascii: "\"") {
                    scalars.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<offset]))
                    offset += 1
                    return try scalars.withUnsafeBufferPointer { buffer throws(JSONSyntaxError) in
                        try text(buffer, at: start)
                    }
                }
                if byte < 0x20 { throw fail(.controlCharacter(byte)) }
                guard byte == UInt8(ascii: "\\") else {
                    offset += 1
                    continue
                }
                scalars.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<offset]))
                let escapeAt = offset
                offset += 1
                guard offset < bytes.count else { throw fail(.stringNeverEnds, at: start) }
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
                    var code = try hex4(escapeAt)
                    if (0xD800..<0xDC00).contains(code) {
                        guard offset + 1 < bytes.count, bytes[offset] == UInt8(ascii: "\\"),
                            bytes[offset + 1] == UInt8(ascii: "u")
                        else { throw fail(.loneSurrogate(code), at: escapeAt) }
                        offset += 2
                        let low = try hex4(offset - 2)
                        guard (0xDC00..<0xE000).contains(low) else { throw fail(.loneSurrogate(code), at: escapeAt) }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00..<0xE000).contains(code) {
                        throw fail(.loneSurrogate(code), at: escapeAt)
                    }
                    scalars.append(contentsOf: Array(String(Character(Unicode.Scalar(code)!)).utf8))
                default:
                    throw fail(.unknownEscape(escape), at: escapeAt)
                }
                run = offset
            }
        }

        /// The four hex digits of the `\\u` escape at `escapeAt`.
        @inlinable
        mutating func hex4(_ escapeAt: Int) throws(JSONSyntaxError) -> UInt32 {
            guard offset + 4 <= bytes.count else { throw fail(.shortUnicodeEscape, at: escapeAt) }
            var code: UInt32 = 0
            for byte in bytes[offset..<offset + 4] {
                guard let digit = Character(Unicode.Scalar(byte)).hexDigitValue else {
                    throw fail(.shortUnicodeEscape, at: escapeAt)
                }
                code = code << 4 | UInt32(digit)
            }
            offset += 4
            return code
        }

        /// The bytes as a String when they are valid UTF-8.
        @inlinable
        func text(_ utf8: UnsafeBufferPointer<UInt8>, at position: Int) throws(JSONSyntaxError) -> String {
            guard let text = String(validating: utf8, as: UTF8.self) else { throw fail(.invalidUTF8, at: position) }
            return text
        }
    }
}
