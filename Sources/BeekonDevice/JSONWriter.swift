/// Writes JSON straight to UTF-8 bytes, in the order it is told, with no intermediate tree.
///
/// The same calls always give the same bytes. Numbers follow Beekon's rules: an integral value
/// has no decimal point (`180`, never `180.0`); any other finite value is written in its
/// shortest round-trip form. Strings are escaped as RFC 8259 requires; non-ASCII stays UTF-8.
public struct JSONWriter: Sendable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8]
    private var afterValue = false
    private var afterKey = false

    /// An empty writer that reserves `capacity` bytes.
    public init(capacity: Int = 1024) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Opens an object (`{`).
    public mutating func beginObject() {
        prepareValue()
        bytes.append(UInt8(ascii: "{"))
        afterValue = false
    }

    /// Closes the innermost object (`}`).
    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        afterValue = true
    }

    /// Opens an array (`[`).
    public mutating func beginArray() {
        prepareValue()
        bytes.append(UInt8(ascii: "["))
        afterValue = false
    }

    /// Closes the innermost array (`]`).
    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        afterValue = true
    }

    /// Writes an object member's name; the next value written is its value.
    public mutating func key(_ name: String) {
        if afterValue { bytes.append(UInt8(ascii: ",")) }
        appendQuoted(name)
        bytes.append(UInt8(ascii: ":"))
        afterKey = true
        afterValue = false
    }

    /// Writes a member name known at compile time, which must need no escaping: the fast path
    /// for the payload's fixed field names.
    public mutating func fixedKey(_ name: StaticString) {
        if afterValue { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        afterKey = true
        afterValue = false
    }

    /// Writes a string value.
    public mutating func string(_ value: String) {
        prepareValue()
        appendQuoted(value)
        afterValue = true
    }

    /// Writes a number: integral values without a decimal point, others in shortest round-trip
    /// form. Non-finite values have no JSON form and are written as `null`.
    public mutating func number(_ value: Double) {
        guard value.isFinite else {
            literal("null")
            return
        }
        // Integers up to 2^53 are exact in a Double; beyond, the exponent form is used.
        if value.rounded(.towardZero) == value, abs(value) < 9_007_199_254_740_992 {
            integer(Int64(value))
        } else {
            prepareValue()
            bytes.append(contentsOf: value.description.utf8)
            afterValue = true
        }
    }

    /// Writes a number as a JSON reader read it (its digits kept exactly); `text` must be a
    /// JSON number.
    public mutating func number(text: String) {
        prepareValue()
        bytes.append(contentsOf: text.utf8)
        afterValue = true
    }

    /// Writes an integer.
    public mutating func integer(_ value: Int64) {
        prepareValue()
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var divisor: UInt64 = 1
        while divisor <= magnitude / 10 { divisor *= 10 }
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(magnitude / divisor))
            magnitude %= divisor
            divisor /= 10
        } while divisor > 0
        afterValue = true
    }

    /// Writes `null`.
    public mutating func null() {
        literal("null")
    }

    /// Writes `true` or `false`.
    public mutating func bool(_ value: Bool) {
        literal(value ? "true" : "false")
    }

    /// Writes a wire timestamp string (`YYYY-MM-DDTHH:MM:SS.mmmZ`) for Unix milliseconds.
    public mutating func timestamp(unixMillis: Int64) {
        prepareValue()
        bytes.append(UInt8(ascii: "\""))
        Timestamp.append(unixMillis: unixMillis, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
        afterValue = true
    }

    /// Writes a UUID as its lowercase text.
    public mutating func uuid(_ id: UUIDv7) {
        prepareValue()
        bytes.append(UInt8(ascii: "\""))
        id.appendText(to: &bytes)
        bytes.append(UInt8(ascii: "\""))
        afterValue = true
    }

    private mutating func literal(_ text: StaticString) {
        prepareValue()
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
        afterValue = true
    }

    /// A comma before an array element or a member that follows another.
    private mutating func prepareValue() {
        if afterKey {
            afterKey = false
        } else if afterValue {
            bytes.append(UInt8(ascii: ","))
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    private mutating func appendQuoted(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [0x5C, 0x5C])
            case 0x08: bytes.append(contentsOf: [0x5C, UInt8(ascii: "b")])
            case 0x0C: bytes.append(contentsOf: [0x5C, UInt8(ascii: "f")])
            case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20:
                bytes.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30])
                bytes.append(Self.hexDigits[Int(byte >> 4)])
                bytes.append(Self.hexDigits[Int(byte & 0xF)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
