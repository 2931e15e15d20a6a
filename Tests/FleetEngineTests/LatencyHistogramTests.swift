import Foundation
import Testing

@testable import FleetEngine

@Suite("Latency histogram")
struct LatencyHistogramTests {
    @Test(
        """
        at the bounds /metrics reports, a record exactly at the bound is within it, and one just past is not \
        (Prometheus's le is inclusive)
        """,
        arguments: LatencyHistogram.exactBoundsMillis)
    func boundsAreInclusive(bound: Double) {
        var histogram = LatencyHistogram()
        histogram.record(bound)
        histogram.record(bound * 1.001)
        histogram.record(bound / 2)
        #expect(histogram.count(atOrBelow: bound) == 2)
        #expect(histogram.count == 3)
    }

    @Test("merged histograms count at the bounds as the records would have together")
    func mergeKeepsBounds() {
        var first = LatencyHistogram()
        var second = LatencyHistogram()
        for millis in [100.0, 30_000, 30_001] { first.record(millis) }
        for millis in [99.0, 100, 5_000] { second.record(millis) }
        first.merge(second)
        #expect(first.count(atOrBelow: 100) == 3)
        #expect(first.count(atOrBelow: 30_000) == 5)
        #expect(first.count == 6)
    }

    @Test(
        """
        percentiles are within HdrHistogram's resolution (1%) of the recorded value, and a duration far past \
        any answer reports itself
        """,
        arguments: [0.5, 12.0, 100, 2_250, 30_000])
    func percentileNearValue(millis: Double) {
        var histogram = LatencyHistogram()
        for _ in 0..<10 { histogram.record(millis) }
        let p50 = histogram.percentile(0.5)
        #expect(p50 >= millis && p50 <= millis * 1.01)
        var far = LatencyHistogram()
        far.record(5_000_000)
        #expect(far.percentile(0.99) == 5_000_000)
    }

    @Test(
        "percentiles of a spread are its nearest ranks to 1%, never past the max; the max is kept to the microsecond")
    func percentilesOfSpread() {
        var histogram = LatencyHistogram()
        for millis in 1...1000 { histogram.record(Double(millis)) }
        for (fraction, rank) in [(0.5, 500.0), (0.9, 900), (0.99, 990), (1, 1000)] {
            let value = histogram.percentile(fraction)
            #expect(value >= rank && value <= rank * 1.01, "p\(fraction * 100): \(value)")
        }
        #expect(histogram.percentile(1) == 1000)
        #expect(histogram.max == 1000)
        #expect(histogram.count == 1000)
        var small = LatencyHistogram()
        small.record(12.345_6)
        #expect(small.max == 12.346 && small.percentile(0.5) == 12.346)
        #expect(LatencyHistogram().percentile(0.99) == 0 && LatencyHistogram().max == 0)
    }

    @Test("a merged histogram reports the percentiles of the records together, and a negative duration counts as 0")
    func mergeKeepsPercentiles() {
        var fast = LatencyHistogram()
        var slow = LatencyHistogram()
        for _ in 0..<90 { fast.record(80) }
        for _ in 0..<10 { slow.record(30_000) }
        slow.record(-5)
        fast.merge(slow)
        #expect(fast.count == 101)
        // A rank inside a range reads as the range's top (80.383 for 80), the max as itself.
        #expect((80...80.8).contains(fast.percentile(0.5)) && (80...80.8).contains(fast.percentile(0.9)))
        #expect(fast.percentile(0.95) == 30_000 && fast.max == 30_000)
        #expect(fast.percentile(0) == 0)
        #expect(fast.sum == 90 * 80 + 10 * 30_000)
    }
}

@Suite("Latency histogram in a shard's report")
struct LatencyHistogramCodingTests {
    @Test(
        """
        a histogram read back from its JSON is the same histogram: equal, with the same count, max, sum, \
        percentiles and counts at the bounds, and it merges as the original does
        """,
        arguments: [
            [], [0], [0.001], [42], [30_000, 30_000.5], [0, 0.4, 12, 99.9, 100, 2_250, 30_000, 86_400_000],
            (1...500).map { Double($0) * 7.3 }, [1e12, 3, 1e12],
        ] as [[Double]])
    func roundTrip(records: [Double]) throws {
        var histogram = LatencyHistogram()
        for millis in records { histogram.record(millis) }
        let read = try JSONDecoder().decode(LatencyHistogram.self, from: JSONEncoder().encode(histogram))
        let figures = { (histogram: LatencyHistogram) in
            [Double(histogram.count), histogram.max, histogram.sum] + [0, 0.5, 0.9, 0.99, 1].map(histogram.percentile)
                + LatencyHistogram.exactBoundsMillis.map { Double(histogram.count(atOrBelow: $0)) }
        }
        #expect(read == histogram)
        #expect(figures(read) == figures(histogram))
        var other = LatencyHistogram()
        for millis in [5.0, 250, 31_000] { other.record(millis) }
        var mergedRead = read
        mergedRead.merge(other)
        var merged = histogram
        merged.merge(other)
        #expect(figures(mergedRead) == figures(merged))
    }

    @Test(
        "a histogram whose JSON does not add up is refused",
        arguments: [
            #"{"buckets":[[1000,2]],"maxMicros":1000,"withinBounds":[1,0,0,0,0,0,0,0,0,0,0,0,0,0,0],"sum":2}"#,
            #"{"buckets":[[1000,0]],"maxMicros":1000,"withinBounds":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],"sum":0}"#,
            #"{"buckets":[[1000]],"maxMicros":1000,"withinBounds":[1,0,0,0,0,0,0,0,0,0,0,0,0,0,0],"sum":1}"#,
            #"{"buckets":[[1000,1]],"maxMicros":1000,"withinBounds":[1],"sum":1}"#,
            #"{"buckets":[[1000,1]],"maxMicros":1000,"withinBounds":[2,-1,0,0,0,0,0,0,0,0,0,0,0,0,0],"sum":1}"#,
        ])
    func refused(json: String) {
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(LatencyHistogram.self, from: Data(json.utf8)) }
    }
}
