import FleetDescription

/// One metric of two runs side by side (`report compare`, `run --baseline`): the baseline's
/// value, the candidate's, the change, and the noise to expect in it, for the fleet or one group.
public struct MetricComparison: Sendable, Hashable {
    public var metric: Threshold.Metric
    /// Nil for the whole fleet.
    public var group: String?
    public var baseline: Double?
    public var candidate: Double?
    /// How far the change may move by chance alone, in the metric's unit (± about 95 %); 0 when
    /// nothing but the server can move it (the same requests, on the virtual clock); nil when
    /// there is no model for it (a maximum, the backlog's peak and drains, real seconds, a
    /// percentile of too few samples).
    public var noise: Double?

    public init(
        metric: Threshold.Metric, group: String?, baseline: Double?, candidate: Double?, noise: Double? = nil
    ) {
        self.metric = metric
        self.group = group
        self.baseline = baseline
        self.candidate = candidate
        self.noise = noise
    }

    /// Candidate − baseline (nil when either measured nothing).
    public var delta: Double? { Threshold.Change.delta.measure(from: baseline, to: candidate) }

    /// (candidate − baseline) ÷ baseline (nil when either measured nothing, or from 0 to more).
    public var relative: Double? { Threshold.Change.relative.measure(from: baseline, to: candidate) }

    /// The change is no larger than the noise to expect: it may be chance.
    public var withinNoise: Bool {
        guard let delta, let noise else { return false }
        return delta != 0 && abs(delta) <= noise
    }

    /// What makes the two runs' figures comparable: whether they sent the same requests (the
    /// same digest), and whether both timed answers on the virtual clock (modelled), so that
    /// only the server's real time can differ between them.
    public struct Sameness: Sendable, Hashable {
        public var sameRequests: Bool
        public var modelled: Bool

        public init(sameRequests: Bool, modelled: Bool) {
            self.sameRequests = sameRequests
            self.modelled = modelled
        }
    }

    /// Every metric of the threshold vocabulary both runs can be compared on, for the fleet and
    /// each group the two share (by name), in the vocabulary's order: statuses and network
    /// outcomes that either run saw, the rest always.
    public static func all(
        baseline: FleetMetrics, baselineGroups: [String], candidate: FleetMetrics, candidateGroups: [String],
        sameness: Sameness = Sameness(sameRequests: false, modelled: false)
    ) -> [MetricComparison] {
        let seen = Set(baseline.uploads.overall.keys).union(candidate.uploads.overall.keys)
        let metrics = Self.metrics(seen: seen)
        var rows: [MetricComparison] = []
        func add(_ group: String?, _ base: RunFigures, _ other: RunFigures) {
            for metric in metrics {
                let baseValue = ThresholdResult.value(of: metric, in: base)
                let otherValue = ThresholdResult.value(of: metric, in: other)
                rows.append(
                    MetricComparison(
                        metric: metric, group: group, baseline: baseValue, candidate: otherValue,
                        noise: Self.noise(of: metric, base, baseValue, other, otherValue, sameness)))
            }
        }
        add(nil, RunFigures(baseline), RunFigures(candidate))
        for (index, group) in baselineGroups.enumerated() {
            guard let other = candidateGroups.firstIndex(of: group) else { continue }
            add(group, RunFigures(baseline, group: index), RunFigures(candidate, group: other))
        }
        return rows
    }

    /// The metrics compared: the vocabulary's, with a status or network outcome only when seen.
    static func metrics(seen: Set<TransferOutcome>) -> [Threshold.Metric] {
        let percentiles = Threshold.Metric.percentiles
        var metrics: [Threshold.Metric] = []
        metrics += percentiles.map { .latency(fraction: $0.1, name: $0.0) }
        metrics += percentiles.map { .serverLatency(fraction: $0.1, name: $0.0) }
        metrics += [.errors(.rate), .errors(.count), .uploads]
        for outcome in seen.sorted() {
            switch outcome {
            case .status(let code): metrics += [.status(code, .rate), .status(code, .count)]
            default:
                let label = outcome.description
                if Threshold.Metric.failureLabels.contains(label) {
                    metrics += [.failure(label, .rate), .failure(label, .count)]
                }
            }
        }
        metrics += [.notSent(.rate), .notSent(.count)]
        metrics += Threshold.Metric.FixCount.allCases.map { .fixes($0) }
        metrics.append(.acknowledgedPerSecond)
        metrics += percentiles.map { .fixAge(fraction: $0.1, name: $0.0) }
        metrics.append(.backlogMax)
        metrics += Threshold.Metric.DuplicateCount.allCases.map { .duplicates($0) }
        metrics.append(.drainMax)
        return metrics
    }

    /// 1.96: a normal variable's 95 % interval, in standard deviations.
    static let z = 1.96

    /// The noise to expect in a change of `metric`. The server's real time varies run to run
    /// whatever was sent; the rest only when the runs sent different requests, or heard answers
    /// in real time (`as-answered`). A percentile's by where its rank may fall among n samples
    /// (the binomial interval of order statistics), a share's by the binomial error of each
    /// side's rate, a count's as a Poisson count's; a maximum and real seconds have none.
    static func noise(
        of metric: Threshold.Metric, _ base: RunFigures, _ baseValue: Double?, _ other: RunFigures,
        _ otherValue: Double?, _ sameness: Sameness
    ) -> Double? {
        let fleetExact = sameness.sameRequests
        let clockExact = sameness.sameRequests && sameness.modelled
        switch metric {
        case .serverLatency(let fraction, _):
            return percentileNoise(fraction, base.serverLatency, other.serverLatency)
        case .latency(let fraction, _):
            return clockExact ? 0 : percentileNoise(fraction, base.latency, other.latency)
        case .fixAge(let fraction, _):
            return clockExact
                ? 0 : percentileNoise(fraction, base.fixes.ageAtAcknowledgement, other.fixes.ageAtAcknowledgement)
        case .backlogMax, .drainMax, .acknowledgedPerSecond:
            // The backlog is counted as each store's commit settles, in the order the stores'
            // thread finishes them in real time: its peak and drains vary even between runs
            // that sent the same requests. Per second divides by real seconds.
            return nil
        case .server:
            // Not in a run's figures: `RunComparison` compares the server's store from the reports.
            return nil
        case .errors(.rate), .status(_, .rate), .failure(_, .rate), .notSent(.rate):
            if fleetExact { return 0 }
            guard let counted = metric.counted else { return nil }
            let variance = [(base, baseValue), (other, otherValue)].reduce(0.0) { sum, side in
                guard let rate = side.1, rate > 0, rate < 1,
                    let count = ThresholdResult.value(of: counted, in: side.0), count > 0
                else { return sum }
                return sum + rate * (1 - rate) / (count / rate)
            }
            return z * variance.squareRoot()
        case .errors(.count), .status(_, .count), .failure(_, .count), .notSent(.count), .uploads, .fixes,
            .duplicates:
            if fleetExact { return 0 }
            guard let baseValue, let otherValue else { return nil }
            return z * (max(0, baseValue) + max(0, otherValue)).squareRoot()
        }
    }

    /// Half the span of each side's percentile between the ranks it may fall at by chance,
    /// combined; nil for a maximum, or a side with too few samples to place the percentile
    /// (its rank may fall past either end: p99 needs about 400).
    static func percentileNoise(_ fraction: Double, _ base: LatencyHistogram, _ other: LatencyHistogram) -> Double? {
        guard fraction < 1 else { return nil }
        func halfSpan(_ histogram: LatencyHistogram) -> Double? {
            guard histogram.count > 0 else { return nil }
            let spread = z * (fraction * (1 - fraction) / Double(histogram.count)).squareRoot()
            guard fraction - spread > 0, fraction + spread < 1 else { return nil }
            return (histogram.percentile(fraction + spread) - histogram.percentile(fraction - spread)) / 2
        }
        guard let b = halfSpan(base), let c = halfSpan(other) else { return nil }
        return (b * b + c * c).squareRoot()
    }
}

extension Threshold.Metric {
    /// The count a share is a share of (`upload.errors.rate` → `upload.errors.count`).
    fileprivate var counted: Threshold.Metric? {
        switch self {
        case .errors(.rate): .errors(.count)
        case .status(let code, .rate): .status(code, .count)
        case .failure(let label, .rate): .failure(label, .count)
        case .notSent(.rate): .notSent(.count)
        default: nil
        }
    }
}
