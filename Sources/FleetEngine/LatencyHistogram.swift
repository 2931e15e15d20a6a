internal import Histogram

/// Durations in milliseconds: percentiles and the max from an HdrHistogram (microseconds, 2
/// significant digits: within 1%), and exact counts at the bounds `/metrics` reports.
public struct LatencyHistogram: Sendable, Hashable {
    /// Where `count(atOrBelow:)` is exact, ms: the bounds `/metrics` reports. Prometheus's `le`
    /// is inclusive, so a timeout heard at exactly 30 s is within 30 s, and a modelled 100 ms
    /// answer within 0.1 s, which HdrHistogram cannot say: its ranges straddle the bounds (at 30 s
    /// one is 131 ms wide).
    public static let exactBoundsMillis: [Double] = [
        1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000,
    ]
    /// The longest duration recorded as itself, ms (about 31 years); longer ones are recorded as
    /// this, so the microseconds always fit HdrHistogram's integers.
    static let ceilingMillis = 1e12
    /// Recorded durations in µs: the microsecond is what the admin API prints; auto-resizing, so
    /// its memory follows the longest duration recorded (19 KiB for 30 s). Two digits, not
    /// three: a third digit costs 7× the memory (128 KiB for 30 s; the admin API keeps a pair per
    /// outcome per second) and about 7× the time to merge and to read a percentile.
    private var recorded = Histogram<UInt64>(numberOfSignificantValueDigits: .two)
    /// Records in (previous bound, bound], by bound; the last slot holds those past every bound.
    private var withinBounds = [Int](repeating: 0, count: exactBoundsMillis.count + 1)
    /// The sum of the recorded durations, ms (HdrHistogram keeps none: its mean is per range).
    public private(set) var sum = 0.0

    /// An empty histogram.
    public init() {}

    /// How many durations were recorded.
    public var count: Int { Int(recorded.totalCount) }

    /// The largest recorded, ms (to the microsecond).
    public var max: Double { Double(recorded.maxRecorded) / 1000 }

    /// Records a duration in milliseconds (a negative one as 0).
    public mutating func record(_ millis: Double) {
        let value = Swift.min(Swift.max(0, millis), Self.ceilingMillis)
        recorded.record(UInt64((value * 1000).rounded()))
        withinBounds[Self.exactBoundsMillis.firstIndex { value <= $0 } ?? Self.exactBoundsMillis.count] += 1
        sum += value
    }

    /// Adds the records of another histogram.
    public mutating func merge(_ other: LatencyHistogram) {
        guard other.count > 0 else { return }
        // The smaller into the larger: growing a histogram is slow (HdrHistogram's resize is generic
        // code not specialized across modules, ~0.2 µs a slot), and its size follows its max.
        if other.recorded.maxRecorded > recorded.maxRecorded {
            var larger = other.recorded
            if count > 0 { larger.add(recorded) }
            recorded = larger
        } else {
            recorded.add(other.recorded)
        }
        for index in withinBounds.indices { withinBounds[index] += other.withinBounds[index] }
        sum += other.sum
    }

    /// How many records are at most `bound` (one of `exactBoundsMillis`), exactly: a cumulative
    /// bucket of a Prometheus histogram.
    public func count(atOrBelow bound: Double) -> Int {
        guard let index = Self.exactBoundsMillis.firstIndex(of: bound) else {
            preconditionFailure("\(bound) ms is not one of LatencyHistogram.exactBoundsMillis")
        }
        return withinBounds[0...index].reduce(0, +)
    }

    /// The duration below which `fraction` (0…1) of records fall, ms (nearest rank, within 1%,
    /// never past the max); 0 when empty.
    public func percentile(_ fraction: Double) -> Double {
        guard count > 0 else { return 0 }
        return Double(recorded.valueAtPercentile(fraction * 100)) / 1000
    }

    // HdrHistogram's `Histogram` is Equatable but not Hashable.
    public static func == (lhs: LatencyHistogram, rhs: LatencyHistogram) -> Bool {
        lhs.recorded == rhs.recorded && lhs.withinBounds == rhs.withinBounds && lhs.sum == rhs.sum
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(withinBounds)
        hasher.combine(sum)
    }
}

/// As a shard's report carries it for `report merge`: the HdrHistogram's buckets that hold
/// records (not its whole counts array, mostly zeros), the exact counts at the bounds and the sum,
/// so the decoded histogram merges and answers exactly as this one.
extension LatencyHistogram: Codable {
    private enum CodingKeys: String, CodingKey {
        case buckets, minMicros, maxMicros, withinBounds, sum
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        // [a value in the bucket, µs; its count]: HdrHistogram's bucket holds every value equivalent to it.
        try container.encode(recorded.recordedValues().map { [$0.value, $0.count] }, forKey: .buckets)
        try container.encode(recorded.min, forKey: .minMicros)
        try container.encode(recorded.maxRecorded, forKey: .maxMicros)
        try container.encode(withinBounds, forKey: .withinBounds)
        try container.encode(sum, forKey: .sum)
    }

    public init(from decoder: any Decoder) throws {
        self.init()
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let buckets = try container.decode([[UInt64]].self, forKey: .buckets)
        let minMicros = try container.decode(UInt64.self, forKey: .minMicros)
        let maxMicros = try container.decode(UInt64.self, forKey: .maxMicros)
        for bucket in buckets {
            guard bucket.count == 2, bucket[1] > 0 else {
                throw DecodingError.dataCorruptedError(
                    forKey: .buckets, in: container, debugDescription: "a bucket is [value µs, count > 0]")
            }
            // The smallest and the largest record are recorded as themselves, so the lowest
            // percentile and `max` read them to the microsecond; the rest of a bucket at any value in it.
            var count = bucket[1]
            if recorded.valuesAreEquivalent(bucket[0], minMicros) {
                recorded.record(minMicros)
                count -= 1
            }
            let value = recorded.valuesAreEquivalent(bucket[0], maxMicros) ? maxMicros : bucket[0]
            guard count == 0 || recorded.record(value, count: count) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .buckets, in: container, debugDescription: "\(value) µs cannot be recorded")
            }
        }
        withinBounds = try container.decode([Int].self, forKey: .withinBounds)
        guard withinBounds.count == Self.exactBoundsMillis.count + 1, withinBounds.allSatisfy({ $0 >= 0 }),
            withinBounds.reduce(0, +) == count
        else {
            throw DecodingError.dataCorruptedError(
                forKey: .withinBounds, in: container,
                debugDescription: "\(Self.exactBoundsMillis.count + 1) counts ≥ 0 that add up to the buckets' \(count)")
        }
        sum = try container.decode(Double.self, forKey: .sum)
    }
}
