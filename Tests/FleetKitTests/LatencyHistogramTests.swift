import Testing

@testable import FleetKit

@Suite("Latency histogram")
struct LatencyHistogramTests {
    @Test(
        "at the bounds /metrics reports, a record exactly at the bound is within it, and one just past is not (Prometheus's le is inclusive)",
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
        "percentiles are within the bucket width (about 3%) of the recorded value, and the open last bucket reports the max",
        arguments: [0.5, 12.0, 100, 2_250, 30_000])
    func percentileNearValue(millis: Double) {
        var histogram = LatencyHistogram()
        for _ in 0..<10 { histogram.record(millis) }
        let p50 = histogram.percentile(0.5)
        #expect(p50 >= millis && p50 <= millis * 1.03)
        var far = LatencyHistogram()
        far.record(5_000_000)
        #expect(far.percentile(0.99) == 5_000_000)
    }
}
