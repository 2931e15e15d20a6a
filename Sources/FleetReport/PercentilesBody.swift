import FleetEngine

/// Latency percentiles in milliseconds (zeros when there were none).
package struct PercentilesBody: APIBody {
    var p50: Double
    var p90: Double
    var p95: Double
    var p99: Double
    var max: Double

    package init(_ histogram: LatencyHistogram) {
        p50 = Rounding.millis(histogram.percentile(0.5))
        p90 = Rounding.millis(histogram.percentile(0.9))
        p95 = Rounding.millis(histogram.percentile(0.95))
        p99 = Rounding.millis(histogram.percentile(0.99))
        max = Rounding.millis(histogram.max)
    }

    package static let example = PercentilesBody(LatencyHistogram())
    package static let component: String? = "Percentiles"
    package static func summary(_ keys: APIKeyStyle) -> String? {
        keys == .snakeCase ? "Percentiles, ms (nearest rank, within 1 %); zeros when nothing was measured." : nil
    }
}
