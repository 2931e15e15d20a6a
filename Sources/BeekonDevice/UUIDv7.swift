/// A UUID version 7 (RFC 9562): a 48-bit Unix-millisecond prefix, then random bits.
///
/// Every id Beekon makes (install, session, fix, geofence event, batch) is one of these, so ids
/// sort by creation time. Its text form is lowercase.
public struct UUIDv7: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Bits 0–63: `unix_ts_ms` (48), `ver` (4), `rand_a` (12).
    public let high: UInt64
    /// Bits 64–127: `var` (2), `rand_b` (62).
    public let low: UInt64

    /// An id from its two 64-bit halves, as they are.
    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Parses the 36-character hyphenated form (either case); nil for anything else. Inlinable,
    /// so a caller's concrete string type is parsed without generic dispatch (stores and the
    /// receiver parse one per fix).
    @inlinable
    public init?(_ text: some StringProtocol) {
        self.init(utf8: text.utf8)
    }

    /// Parses the 36-character hyphenated form (either case) from its UTF-8 bytes; nil for
    /// anything else.
    @inlinable
    public init?(utf8: some Sequence<UInt8>) {
        var high: UInt64 = 0
        var low: UInt64 = 0
        var nibbles = 0
        var count = 0
        for byte in utf8 {
            count += 1
            if count == 9 || count == 14 || count == 19 || count == 24 {
                guard byte == UInt8(ascii: "-") else { return nil }
                continue
            }
            guard let value = Self.hexValue(byte) else { return nil }
            if nibbles < 16 {
                high = high << 4 | UInt64(value)
            } else {
                low = low << 4 | UInt64(value)
            }
            nibbles += 1
        }
        guard count == 36, nibbles == 32 else { return nil }
        self.init(high: high, low: low)
    }

    /// The Unix milliseconds in the prefix.
    public var unixMillis: Int64 { Int64(high >> 16) }

    /// The version field (7 for ids made here).
    public var version: Int { Int((high >> 12) & 0xF) }

    /// The two variant bits (0b10 for RFC 9562 ids).
    public var variant: Int { Int(low >> 62) }

    /// The lowercase hyphenated text form, e.g. `0190d4e2-7b1a-7c3e-9f10-2a4b6c8d0e1f`.
    public var text: String {
        String(unsafeUninitializedCapacity: 36) { buffer in
            writeText(into: UnsafeMutableRawBufferPointer(buffer))
            return 36
        }
    }

    /// Appends the lowercase hyphenated text form to `bytes`.
    public func appendText(to bytes: inout [UInt8]) {
        withUnsafeTemporaryAllocation(byteCount: 36, alignment: 1) { buffer in
            writeText(into: buffer)
            bytes.append(contentsOf: buffer)
        }
    }

    public var description: String { text }

    public static func < (lhs: UUIDv7, rhs: UUIDv7) -> Bool {
        (lhs.high, lhs.low) < (rhs.high, rhs.low)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let id = UUIDv7(text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "expected a UUID like 0190d4e2-7b1a-7c3e-9f10-2a4b6c8d0e1f")
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }

    /// Writes the 36 text bytes into `buffer`, which holds at least 36.
    private func writeText(into buffer: UnsafeMutableRawBufferPointer) {
        var index = 0
        for nibble in 0..<32 {
            if nibble == 8 || nibble == 12 || nibble == 16 || nibble == 20 {
                buffer[index] = UInt8(ascii: "-")
                index += 1
            }
            let word = nibble < 16 ? high : low
            let value = UInt8(truncatingIfNeeded: word >> UInt64(60 - (nibble % 16) * 4)) & 0xF
            buffer[index] = value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
            index += 1
        }
    }

    @inlinable
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
