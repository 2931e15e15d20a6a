/// Makes UUIDv7 ids from the time and the random generator it is given.
///
/// Within one millisecond the 74 random bits act as a counter that grows by a random step
/// (RFC 9562 §6.2, method 3), so ids from one generator strictly increase. A new millisecond
/// starts from fresh random bits with the counter's top bit clear, leaving 2^73 of headroom.
public struct UUIDv7Generator: Sendable, Hashable {
    private static let randBMask: UInt64 = (1 << 62) - 1
    private static let maxMillis: Int64 = (1 << 48) - 1

    private var lastMillis: Int64 = -1
    private var randA: UInt64 = 0
    private var randB: UInt64 = 0

    /// A generator that has made no id yet.
    public init() {}

    /// The next id for `unixMillis` (clamped to the 48-bit range), with random bits from `rng`.
    public mutating func next(
        atUnixMillis unixMillis: Int64, using rng: inout some RandomNumberGenerator
    ) -> UUIDv7 {
        var millis = min(max(unixMillis, 0), Self.maxMillis)
        if millis == lastMillis {
            // A random step of 1…2^32 keeps ids unguessable while they increase.
            randB += 1 + (rng.next() & 0xFFFF_FFFF)
            if randB > Self.randBMask {
                randB &= Self.randBMask
                randA += 1
                if randA > 0xFFF {
                    // Counter exhausted within this millisecond: borrow the next one (RFC 9562 §6.2).
                    millis = min(millis + 1, Self.maxMillis)
                    reseed(using: &rng)
                }
            }
        } else {
            reseed(using: &rng)
        }
        lastMillis = millis
        let high = UInt64(millis) << 16 | 0x7 << 12 | randA
        let low = 0b10 << 62 | randB
        return UUIDv7(high: high, low: low)
    }

    private mutating func reseed(using rng: inout some RandomNumberGenerator) {
        randA = rng.next() & 0x7FF
        randB = rng.next() & Self.randBMask
    }
}
