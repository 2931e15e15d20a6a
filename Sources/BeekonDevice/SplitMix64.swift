/// A small, fast, seedable random number generator (SplitMix64).
///
/// Every random choice a device makes comes from one of these, derived from the run seed, so a
/// run can be reproduced exactly.
public struct SplitMix64: RandomNumberGenerator, Sendable, Hashable {
    private var state: UInt64

    /// A generator whose sequence is fixed by `seed`.
    public init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// An independent generator for a sub-stream (a device, a route), fixed by this seed and `key`.
    public func derived(_ key: UInt64) -> SplitMix64 {
        var mixer = SplitMix64(seed: state ^ (key &* 0xD6E8_FEB8_6659_FD93))
        return SplitMix64(seed: mixer.next())
    }
}
