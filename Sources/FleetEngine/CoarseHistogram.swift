/// Durations counted in fixed, roughly logarithmic bounds from 1 ms to 30 days: a percentile is
/// the bound its rank falls under (within a step of about a factor 2), in 31 integers, so a
/// history row costs bytes, not an HdrHistogram's kilobytes.
public struct CoarseHistogram: Sendable, Hashable, Codable {
    /// The upper bounds, ms: 1, 2.5, 5, 10, … 30 days; the last slot holds what is past them.
    public static let boundsMillis: [Double] = {
        var bounds: [Double] = []
        var decade = 1.0
        while decade <= 1e9 {
            bounds += [decade, decade * 2.5, decade * 5]
            decade *= 10
        }
        return bounds.filter { $0 <= 2_592_000_000 } + [2_592_000_000]
    }()

    private var counts: [Int32] = []
    public private(set) var count = 0

    public init() {}

    mutating func record(_ millis: Double) {
        if counts.isEmpty { counts = Array(repeating: 0, count: Self.boundsMillis.count + 1) }
        let slot = Self.boundsMillis.firstIndex { millis <= $0 } ?? Self.boundsMillis.count
        counts[slot] += 1
        count += 1
    }

    mutating func merge(_ other: CoarseHistogram) {
        guard other.count > 0 else { return }
        if counts.isEmpty { counts = Array(repeating: 0, count: Self.boundsMillis.count + 1) }
        for index in counts.indices { counts[index] += other.counts[index] }
        count += other.count
    }

    /// The bound under which `fraction` (0…1) of the records fall, ms; nil when empty.
    public func percentile(_ fraction: Double) -> Double? {
        guard count > 0 else { return nil }
        let rank = max(1, Int((fraction * Double(count)).rounded(.up)))
        var seen = 0
        for (index, slotCount) in counts.enumerated() {
            seen += Int(slotCount)
            if seen >= rank {
                return index < Self.boundsMillis.count ? Self.boundsMillis[index] : Self.boundsMillis.last!
            }
        }
        return Self.boundsMillis.last
    }

    // A history holds three of these a row, thousands of rows: one string of the slots that
    // counted (`"3:12,4:40"`) reads several times faster than 31 numbers through Codable.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(
            counts.enumerated().filter { $0.element > 0 }.map { "\($0.offset):\($0.element)" }.joined(separator: ","))
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard !text.isEmpty else { return }
        counts = Array(repeating: 0, count: Self.boundsMillis.count + 1)
        for pair in text.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
            let parts = pair.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
            guard parts.count == 2, let slot = Int(Substring(parts[0])), let slotCount = Int32(Substring(parts[1])),
                counts.indices.contains(slot), slotCount > 0
            else {
                throw DecodingError.dataCorruptedError(
                    in: container,
                    debugDescription: "\"\(text.prefix(40))\" is not a coarse histogram (slot:count pairs, slots 0 to "
                        + "\(Self.boundsMillis.count), counts above 0)")
            }
            counts[slot] += slotCount
            count += Int(slotCount)
        }
    }
}
