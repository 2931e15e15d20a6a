/// Why bytes are not JSON the parser accepts: the byte offset and what is wrong there. Each
/// surface says it in its own words (a byte offset for a request body, a line and column in a
/// route file); `reason` is the plain form.
public struct JSONSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public enum Kind: Sendable, Hashable {
        /// The text ends where `expected` should come.
        case endsEarly(expected: String)
        /// The byte `found` stands where `expected` should.
        case unexpected(found: UInt8, expected: String)
        /// More than whitespace follows the value.
        case dataAfterValue
        case leadingZero
        /// A number longer than `limit` characters.
        case numberTooLong(limit: Int)
        /// A number too large for a `Double` (for readers that take numbers as doubles).
        case numberNotFinite
        case stringNeverEnds
        /// A control character (below 0x20) inside a string.
        case controlCharacter(UInt8)
        /// A backslash followed by `escape`, which JSON does not define.
        case unknownEscape(UInt8)
        /// `\u` without four hex digits after it.
        case shortUnicodeEscape
        /// A UTF-16 surrogate without its other half.
        case loneSurrogate(UInt32)
        /// A string whose bytes are not UTF-8.
        case invalidUTF8
        /// Containers nested deeper than `limit`.
        case tooDeep(limit: Int)
        /// More than `limit` values.
        case tooManyValues(limit: Int)
        /// A key given twice in one object (for readers that refuse it).
        case duplicateKey(String)
    }

    /// Where, in bytes from the start of the text.
    public var offset: Int
    public var kind: Kind

    public init(offset: Int, kind: Kind) {
        self.offset = offset
        self.kind = kind
    }

    /// A byte as a message shows it: `'['`, or `byte 0xc` when it is not printable ASCII.
    public static func shown(_ byte: UInt8) -> String {
        byte >= 0x20 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
    }

    /// What is wrong, in words: `'['; expected ',' or ']'`, `a number with a leading zero`.
    public var problem: String {
        switch kind {
        case .endsEarly(let expected): "ends early; expected \(expected)"
        case .unexpected(let found, let expected): "\(Self.shown(found)); expected \(expected)"
        case .dataAfterValue: "data after the value"
        case .leadingZero: "a number with a leading zero"
        case .numberTooLong(let limit): "a number longer than \(limit) characters"
        case .numberNotFinite: "a number too large for a double"
        case .stringNeverEnds: "a string that never ends"
        case .controlCharacter(let byte): "a control character (0x\(String(byte, radix: 16))) inside a string"
        case .unknownEscape(let escape): "an unknown escape \\\(Character(Unicode.Scalar(escape)))"
        case .shortUnicodeEscape: "\\u needs four hex digits"
        case .loneSurrogate(let code): "a lone UTF-16 surrogate \\u\(String(code, radix: 16))"
        case .invalidUTF8: "invalid UTF-8 in a string"
        case .tooDeep(let limit): "JSON nested deeper than \(limit) levels (the depth limit)"
        case .tooManyValues(let limit): "more than \(limit) JSON values (the element limit)"
        case .duplicateKey(let name): "duplicate key \"\(name.prefix(40))\" in an object"
        }
    }

    /// The problem, said to be a syntax error where it is one: `not valid JSON: '['; expected
    /// ',' or ']'`; a limit passed or bytes that are not UTF-8 are said as they are.
    public var reason: String {
        switch kind {
        case .numberTooLong, .invalidUTF8, .tooDeep, .tooManyValues, .duplicateKey, .numberNotFinite: problem
        default: "not valid JSON: \(problem)"
        }
    }

    /// `reason (at byte N)`.
    public var description: String { "\(reason) (at byte \(offset))" }
}
