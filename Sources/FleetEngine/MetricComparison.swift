import FleetDescription

/// One metric of two runs side by side (`report compare`, `run --baseline`): the baseline's
/// value, the candidate's, and the change, for the fleet or one group.
public struct MetricComparison: Sendable, Hashable {
    public var metric: Threshold.Metric
    /// Nil for the whole fleet.
    public var group: String?
    public var baseline: Double?
    public var candidate: Double?

    /// Candidate − baseline (nil when either measured nothing).
    public var delta: Double? { Threshold.Change.delta.measure(from: baseline, to: candidate) }

    /// (candidate − baseline) ÷ baseline (nil when either measured nothing, or from 0 to more).
    public var relative: Double? { Threshold.Change.relative.measure(from: baseline, to: candidate) }

    /// Every metric of the threshold vocabulary both runs can be compared on, for the fleet and
    /// each group the two share (by name), in the vocabulary's order: statuses and network
    /// outcomes that either run saw, the rest always.
    public static func all(
        baseline: FleetMetrics, baselineGroups: [String], candidate: FleetMetrics, candidateGroups: [String]
    ) -> [MetricComparison] {
        let seen = Set(baseline.uploads.overall.keys).union(candidate.uploads.overall.keys)
        let metrics = Self.metrics(seen: seen)
        var rows: [MetricComparison] = []
        func add(_ group: String?, _ base: RunFigures, _ candidateFigures: RunFigures) {
            for metric in metrics {
                rows.append(
                    MetricComparison(
                        metric: metric, group: group, baseline: ThresholdResult.value(of: metric, in: base),
                        candidate: ThresholdResult.value(of: metric, in: candidateFigures)))
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
}
