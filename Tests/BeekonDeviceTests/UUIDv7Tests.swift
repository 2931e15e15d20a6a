import Testing

@testable import BeekonDevice

@Suite("UUIDv7")
struct UUIDv7Tests {
    @Test("an id carries version 7 and the RFC 9562 variant", arguments: [0, 1, 42, 0xBEEF] as [UInt64])
    func versionAndVariant(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var generator = UUIDv7Generator()
        for millis in stride(from: Int64(1_750_000_000_000), to: 1_750_000_000_100, by: 7) {
            let id = generator.next(atUnixMillis: millis, using: &rng)
            #expect(id.version == 7)
            #expect(id.variant == 0b10)
            let text = id.text
            #expect(Array(text)[14] == "7")
            #expect("89ab".contains(Array(text)[19]))
        }
    }

    @Test(
        "the time prefix equals the milliseconds it was given",
        arguments: [
            0, 1, 1_718_454_896_789, 1_750_000_000_000, (1 << 48) - 1,
        ] as [Int64])
    func timePrefix(millis: Int64) {
        var rng = SplitMix64(seed: 7)
        var generator = UUIDv7Generator()
        let id = generator.next(atUnixMillis: millis, using: &rng)
        #expect(id.unixMillis == millis)
        let hexPrefix = String(id.text.replacingOccurrences(of: "-", with: "").prefix(12))
        #expect(Int64(hexPrefix, radix: 16) == millis)
    }

    @Test("10,000 ids from one generator in the same millisecond strictly increase")
    func monotonicWithinMillisecond() {
        var rng = SplitMix64(seed: 99)
        var generator = UUIDv7Generator()
        var previous = generator.next(atUnixMillis: 1_750_000_000_000, using: &rng)
        for _ in 1..<10_000 {
            let id = generator.next(atUnixMillis: 1_750_000_000_000, using: &rng)
            #expect(id > previous)
            #expect(id.text > previous.text)
            #expect(id.unixMillis == 1_750_000_000_000)
            previous = id
        }
    }

    @Test("the text form is lowercase, hyphenated, and parses back to the same id")
    func textRoundTrip() {
        var rng = SplitMix64(seed: 3)
        var generator = UUIDv7Generator()
        for millis in [Int64(0), 1_000, 1_750_000_000_000] {
            let id = generator.next(atUnixMillis: millis, using: &rng)
            let text = id.text
            #expect(text.count == 36)
            #expect(text == text.lowercased())
            #expect(text.split(separator: "-").map(\.count) == [8, 4, 4, 4, 12])
            #expect(UUIDv7(text) == id)
            #expect(UUIDv7(text.uppercased()) == id)
        }
    }

    @Test(
        "malformed text does not parse",
        arguments: [
            "", "0190d4e2-7b1a-7c3e-9f10-2a4b6c8d0e1", "0190d4e2-7b1a-7c3e-9f10-2a4b6c8d0e1ff",
            "0190d4e27b1a-7c3e-9f10-2a4b6c8d0e1ff", "0190d4e2-7b1a-7c3e-9f10-2a4b6c8d0e1g",
        ])
    func malformed(text: String) {
        #expect(UUIDv7(text) == nil)
    }

    @Test("the same seed and times give the same ids")
    func reproducible() {
        func ids() -> [UUIDv7] {
            var rng = SplitMix64(seed: 2026)
            var generator = UUIDv7Generator()
            return (0..<100).map { generator.next(atUnixMillis: 1_750_000_000_000 + Int64($0 / 3), using: &rng) }
        }
        #expect(ids() == ids())
    }
}
