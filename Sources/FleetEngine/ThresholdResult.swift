import FleetDescription

/// A threshold checked against a run's figures: the value it measured (nil when there was
/// nothing to measure, which fails it: a run that uploaded nothing has not shown its server
/// holds) and whether it passed.
public struct ThresholdResult: Sendable, Hashable {
    public var threshold: Threshold
    public var value: Double?
    public var passed: Bool

    /// `threshold` checked against `value` (nil, nothing measured, fails it).
    public init(threshold: Threshold, value: Double?) {
        self.threshold = threshold
        self.value = value
        passed = value.map { threshold.comparison.holds($0, threshold.limit) } ?? false
    }

    /// Each threshold against `metrics`, in order: a group's against that group's figures
    /// (`groups` names the groups by index, as the fleet file orders them).
    public static func check(
        _ thresholds: [Threshold], against metrics: FleetMetrics, groups: [String] = []
    ) -> [ThresholdResult] {
        thresholds.map { threshold in
            let figures: RunFigures?
            if let group = threshold.group {
                figures = groups.firstIndex(of: group).map { RunFigures(metrics, group: $0) }
            } else {
                figures = RunFigures(metrics)
            }
            let value = figures.flatMap { Self.value(of: threshold.metric, in: $0) }
            return ThresholdResult(threshold: threshold, value: value)
        }
    }

    /// What `metric` measured; nil when it has nothing to measure.
    public static func value(of metric: Threshold.Metric, in figures: RunFigures) -> Double? {
        let outcomes = figures.uploads
        let uploads = outcomes.values.reduce(0) { $0 + $1.count }
        // The server's shares count the uploads the server could be judged on: not those the
        // fleet's own timing or limits decided.
        let serverUploads = outcomes.filter { !$0.key.isFleetSide }.values.reduce(0) { $0 + $1.count }
        func share(_ count: Int, _ kind: Threshold.Metric.Share, of total: Int) -> Double? {
            switch kind {
            case .count: Double(count)
            case .rate: total == 0 ? nil : Double(count) / Double(total)
            }
        }
        let fixes = figures.fixes.ledger
        switch metric {
        case .latency(let fraction, _):
            guard uploads > 0 else { return nil }
            return fraction >= 1 ? figures.latency.max : figures.latency.percentile(fraction)
        case .serverLatency(let fraction, _):
            let server = figures.serverLatency
            guard server.count > 0 else { return nil }
            return fraction >= 1 ? server.max : server.percentile(fraction)
        case .errors(let kind):
            let failed = outcomes.filter { !$0.key.isSuccess && !$0.key.isFleetSide }.values.reduce(0) { $0 + $1.count }
            return share(failed, kind, of: serverUploads)
        case .status(let code, let kind):
            return share(outcomes[.status(code)]?.count ?? 0, kind, of: serverUploads)
        case .failure(let label, let kind):
            guard let outcome = TransferOutcome.networkOutcomes.first(where: { $0.description == label }) else {
                return share(0, kind, of: serverUploads)
            }
            return share(outcomes[outcome]?.count ?? 0, kind, of: outcome.isFleetSide ? uploads : serverUploads)
        case .notSent(let kind):
            let notSent = outcomes.filter { if case .notSent = $0.key { true } else { false } }
            return share(notSent.values.reduce(0) { $0 + $1.count }, kind, of: uploads)
        case .uploads:
            return Double(uploads)
        case .fixes(let count):
            switch count {
            case .admitted: return Double(fixes.admitted)
            case .acknowledged: return Double(fixes.acknowledged)
            case .rejected: return Double(fixes.rejected)
            case .pending: return Double(fixes.pending)
            case .expired: return Double(fixes.expired)
            case .deleted: return Double(fixes.deleted)
            case .lost: return Double(fixes.lost)
            case .uninstalled: return Double(fixes.uninstalled)
            case .unaccounted: return Double(figures.fixes.unaccounted)
            }
        case .acknowledgedPerSecond:
            return figures.realSeconds > 0 ? Double(fixes.acknowledged) / figures.realSeconds : nil
        case .fixAge(let fraction, _):
            let age = figures.fixes.ageAtAcknowledgement
            guard age.count > 0 else { return nil }
            return fraction >= 1 ? age.max : age.percentile(fraction)
        case .backlogMax:
            return Double(figures.fixes.maxPending)
        case .duplicates(.batches):
            return Double(figures.fixes.unheardAcknowledgements.batches)
        case .duplicates(.fixes):
            return Double(figures.fixes.unheardAcknowledgements.fixes)
        case .drainMax:
            // No fault ended: nothing drained, so nothing took long.
            return figures.drains.map { $0.millis(at: figures.virtualNow) }.max() ?? 0
        case .server:
            // The server's store, not the run's figures: `verify` measures it.
            return nil
        }
    }

    /// `✓ upload.errors.rate < 0.05  (0.0123)`, for the end-of-run summary.
    public var line: String {
        "\(passed ? "✓" : "✗") \(threshold.expression)  (\(valueText))"
    }

    /// The value as the metric reads: `812.3ms`, `0.0123`, `4,031`, or `no data`.
    public var valueText: String { Self.text(value, of: threshold.metric) }

    /// A value of `metric` as it reads: `812.3ms`, `0.0123`, `4,031`, or `no data`.
    public static func text(_ value: Double?, of metric: Threshold.Metric) -> String {
        guard let value else { return "no data" }
        switch metric {
        case .latency, .serverLatency, .fixAge, .drainMax: return FleetDuration.display(millis: value)
        case .errors(.rate), .status(_, .rate), .failure(_, .rate), .notSent(.rate), .server(_, .rate):
            return "\(Rounding.ratio(value))"
        case .acknowledgedPerSecond: return "\(value.rounded(places: 1))/s"
        default: return String(Int64(value))
        }
    }
}
