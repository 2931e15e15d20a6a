/// A numeric input's documented range, and the one check every surface applies to it: the CLI,
/// the fleet file, the admin API's bodies and query strings, the receiver's options and rules.
///
/// A value is accepted only when it is finite, inside `lower...upper`, and, for a whole-number
/// range, an exact integer (read from its text, never through a `Double` that would round
/// `2^63` or `1e16`). Each surface adds where the value came from (a flag, file:line:column, a
/// JSON field) to the `NumberProblem` it gets back.
public struct NumberRange: Sendable, Hashable, CustomStringConvertible {
    /// The smallest value accepted.
    public let lower: Double
    /// The largest value accepted.
    public let upper: Double
    /// Whether only whole numbers are accepted.
    public let isInteger: Bool
    /// The unit, for messages (`"s"`, `"devices"`); empty for none.
    public let unit: String

    /// A range of real numbers.
    public init(_ range: ClosedRange<Double>, unit: String = "") {
        precondition(range.lowerBound.isFinite && range.upperBound.isFinite, "a range has finite bounds")
        lower = range.lowerBound
        upper = range.upperBound
        isInteger = false
        self.unit = unit
    }

    /// A range of whole numbers; both bounds must be exact as a `Double` (within ±2^53).
    public static func integer(_ range: ClosedRange<Int64>, unit: String = "") -> NumberRange {
        NumberRange(integerLower: range.lowerBound, upper: range.upperBound, unit: unit)
    }

    private init(integerLower: Int64, upper: Int64, unit: String) {
        precondition(abs(integerLower) <= 1 << 53 && abs(upper) <= 1 << 53, "integer bounds are exact as a Double")
        lower = Double(integerLower)
        self.upper = Double(upper)
        isInteger = true
        self.unit = unit
    }

    /// What the range accepts, for messages: `a number from 0.01 to 10000`,
    /// `a whole number from 1 to 100000 devices`.
    public var description: String {
        let kind = isInteger ? "a whole number" : "a number"
        return "\(kind) from \(Self.text(lower)) to \(Self.text(upper))" + (unit.isEmpty ? "" : " \(unit)")
    }

    /// Whether `range` holds `value`.
    public func contains(_ value: Double) -> Bool {
        value.isFinite && value >= lower && value <= upper && (!isInteger || value.rounded(.towardZero) == value)
    }

    /// Checks a value already read as a number (a JSON or YAML number); `written` is how the
    /// input wrote it, for the message (its `Double` text when nil).
    public func check(_ value: Double, written: String? = nil) throws(NumberProblem) -> Double {
        let shown = written ?? Self.text(value)
        guard value.isFinite else { throw NumberProblem(value: shown, reason: .notFinite, expected: description) }
        guard value >= lower, value <= upper else {
            throw NumberProblem(value: shown, reason: .outOfRange, expected: description)
        }
        guard !isInteger || value.rounded(.towardZero) == value else {
            throw NumberProblem(value: shown, reason: .notWhole, expected: description)
        }
        return value
    }

    /// Reads `text` as a number in the range: decimal notation (`12`, `0.5`, `1e3`, `1_000`);
    /// `nan`, `inf`, hex floats and empty text are refused.
    public func read(_ text: String) throws(NumberProblem) -> Double {
        if isInteger {
            return Double(try readInteger(text))
        }
        let (trimmed, digits) = Self.digits(text)
        guard Self.isDecimal(digits), let value = Double(digits) else {
            throw NumberProblem(value: trimmed, reason: .notANumber, expected: description)
        }
        return try check(value, written: trimmed)
    }

    /// Reads `text` as a whole number in the range, exactly: `1e3`, `1.0` and `2^63` are refused
    /// (they are not written as whole numbers, or do not fit).
    public func readInteger(_ text: String) throws(NumberProblem) -> Int64 {
        let (trimmed, digits) = Self.digits(text)
        guard Self.isDecimal(digits) else {
            throw NumberProblem(value: trimmed, reason: .notANumber, expected: description)
        }
        guard let value = Int64(digits) else {
            // A decimal that Int64 cannot read: a fraction, an exponent, or too many digits.
            let isWhole = digits.allSatisfy { $0.isASCII && ($0.isNumber || $0 == "-" || $0 == "+") }
            throw NumberProblem(value: trimmed, reason: isWhole ? .outOfRange : .notWhole, expected: description)
        }
        guard Double(value) >= lower, Double(value) <= upper else {
            throw NumberProblem(value: trimmed, reason: .outOfRange, expected: description)
        }
        return value
    }

    /// Whether `text` is a plain decimal number: sign, digits, one point, an exponent. This
    /// keeps out what `Double(_:)` would also read: `nan`, `inf`, `0x1p3`. Read as UTF-8 bytes
    /// (every character it accepts is ASCII): a receiver checks millions of numbers.
    private static func isDecimal(_ text: String) -> Bool {
        var sawDigit = false
        var sawPoint = false
        var sawExponent = false
        var previous: UInt8?
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                sawDigit = true
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                guard previous == nil || previous == UInt8(ascii: "e") || previous == UInt8(ascii: "E") else {
                    return false
                }
            case UInt8(ascii: "."):
                guard !sawPoint, !sawExponent else { return false }
                sawPoint = true
            case UInt8(ascii: "e"), UInt8(ascii: "E"):
                guard sawDigit, !sawExponent else { return false }
                sawExponent = true
            default:
                return false
            }
            previous = byte
        }
        guard sawDigit, let last = previous else { return false }
        return (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(last) || last == UInt8(ascii: ".")
    }

    /// `text` as `read` takes its digits: without spaces and tabs around it, and without `_`.
    /// Most text (every JSON number) has neither, and is taken as it is.
    private static func digits(_ text: String) -> (written: String, digits: String) {
        let blank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        let bytes = text.utf8
        if let first = bytes.first, let last = bytes.last, !blank(first), !blank(last),
            !bytes.contains(UInt8(ascii: "_"))
        {
            return (text, text)
        }
        let trimmed = Self.trimmed(text)
        return (trimmed, trimmed.filter { $0 != "_" })
    }

    /// `text` without spaces and tabs around it.
    private static func trimmed(_ text: String) -> String {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        return String(text.drop(while: isBlank).reversed().drop(while: isBlank).reversed())
    }

    /// A bound or value as people write it: `10000`, `0.01`, `1e+300`.
    static func text(_ value: Double) -> String {
        if value.isFinite, value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}
