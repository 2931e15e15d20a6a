import FleetDescription

/// A threshold checked against a run's figures: the value it measured (nil when there was
/// nothing to measure, which fails it: a run that uploaded nothing has not shown its server
/// holds) and whether it passed.
public struct ThresholdResult: Sendable, Hashable {
    public var threshold: Threshold
    public var value: Double?
    public var passed: Bool

    /// Each threshold against `metrics`, in order.
    public static func check(_ thresholds: [Threshold], against metrics: FleetMetrics) -> [ThresholdResult] {
        thresholds.map { threshold in
            let value = Self.value(of: threshold.metric, in: metrics)
            return ThresholdResult(
                threshold: threshold, value: value,
                passed: value.map { threshold.comparison.holds($0, threshold.limit) } ?? false)
        }
    }

    /// What `metric` measured over the run; nil when it has nothing to measure.
    public static func value(of metric: Threshold.Metric, in metrics: FleetMetrics) -> Double? {
        let outcomes = metrics.uploads.overall
        let uploads = outcomes.values.reduce(0) { $0 + $1.count }
        func share(_ count: Int, _ kind: Threshold.Metric.Share) -> Double? {
            switch kind {
            case .count: Double(count)
            case .rate: uploads == 0 ? nil : Double(count) / Double(uploads)
            }
        }
        switch metric {
        case .latency(let fraction, _):
            guard uploads > 0 else { return nil }
            return fraction >= 1 ? metrics.latency.max : metrics.latency.percentile(fraction)
        case .errors(let kind):
            let failed = outcomes.filter { !$0.key.isSuccess }.values.reduce(0) { $0 + $1.count }
            return share(failed, kind)
        case .status(let code, let kind):
            return share(outcomes[.status(code)]?.count ?? 0, kind)
        case .failure(let label, let kind):
            let count = outcomes.first { $0.key.isNetwork && $0.key.description == label }?.value.count ?? 0
            return share(count, kind)
        case .uploads:
            return Double(uploads)
        case .fixes(.admitted): return Double(metrics.fixesStored)
        case .fixes(.acknowledged): return Double(metrics.fixes.ledger.acknowledged)
        case .fixes(.lost): return Double(metrics.fixesLostByCause.values.reduce(0, +))
        case .fixes(.pending): return Double(metrics.fixes.ledger.pending)
        case .acknowledgedPerSecond:
            return metrics.realSeconds > 0 ? Double(metrics.fixes.ledger.acknowledged) / metrics.realSeconds : nil
        }
    }

    /// `✓ upload.errors.rate < 0.05  (0.0123)`, for the end-of-run summary.
    public var line: String {
        "\(passed ? "✓" : "✗") \(threshold.expression)  (\(valueText))"
    }

    /// The value as the metric reads: `812.3ms`, `0.0123`, `4,031`, or `no data`.
    public var valueText: String {
        guard let value else { return "no data" }
        switch threshold.metric {
        case .latency: return "\((value * 10).rounded() / 10)ms"
        case .errors(.rate), .status(_, .rate), .failure(_, .rate): return "\((value * 10_000).rounded() / 10_000)"
        case .acknowledgedPerSecond: return "\((value * 10).rounded() / 10)/s"
        default: return String(Int64(value))
        }
    }
}
