import FleetEngine

/// `report compare --json`: the comparison as data. Values are as `run --report` gives them (ms
/// for durations, 0 to 1 for shares); each change in the metric's unit and relative to the
/// baseline, with the noise to expect in it.
package struct ComparisonBody: APIBody {
    package static let keyStyle = APIKeyStyle.snakeCase

    enum Verdict: String, APIEnum {
        case passed, failed
        /// No threshold was given: compared, not judged.
        case compared
    }

    /// One run as compared.
    struct Side: APIBody {
        var file: String
        var name: String
        var seed: String
        var startedAt: APITime
        var digest: String
        var requests: Int
        var timing: TimingBody?

        init(_ side: RunComparison.Side) {
            let record = side.record
            file = side.file
            name = record.name
            seed = String(record.seed)
            startedAt = APITime(record.startedAt)
            digest = side.digest
            requests = record.metrics.sent.count
            timing = record.deterministic.map(TimingBody.init(deterministic:))
        }

        static let example = Side(
            RunComparison.Side(file: "", record: RunRecord(.init(), shard: .whole, end: nil, abortedBy: nil)))
        static let notes = [
            "file": APINote("The report file, as given."),
            "seed": APINote("The run's seed, as text."),
            "digest": APINote("The digest of every request the run's devices sent."),
            "requests": APINote("How many requests they sent."),
            "timing": APINote(
                "How its answers took their time on the virtual clock; null when merged shards differed."),
        ]
    }

    struct Row: APIBody {
        var metric: String
        var group: String?
        var baseline: Double?
        var candidate: Double?
        var delta: Double?
        var relative: Double?
        var noise: Double?
        var withinNoise: Bool

        init(_ row: MetricComparison) {
            metric = row.metric.description
            group = row.group
            baseline = row.baseline
            candidate = row.candidate
            delta = row.delta
            relative = row.relative
            noise = row.noise
            withinNoise = row.withinNoise
        }

        static let example = Row(MetricComparison(metric: .uploads, group: nil, baseline: nil, candidate: nil))
        static let notes = [
            "metric": APINote("The metric, in the threshold vocabulary (docs/fleet-file.md)."),
            "group": APINote("The group, or null for the whole fleet."),
            "baseline": APINote("The baseline's value (ms for durations, 0 to 1 for shares); null: nothing measured."),
            "candidate": APINote("The candidate's value; null: nothing measured."),
            "delta": APINote("Candidate − baseline, in the metric's unit; null when either is null."),
            "relative": APINote("(candidate − baseline) ÷ baseline; null when either is null, or from 0 to more."),
            "noise": APINote(
                "How far the change may move by chance alone (± about 95 %), in the metric's unit: 0 when only the "
                    + "server can move it (the same requests on the virtual clock); null when there is no model "
                    + "for it (a maximum, real seconds)."),
            "within_noise": APINote("The change is not 0 and no larger than `noise`: it may be chance."),
        ]
    }

    struct Drain: APIBody {
        var fault: Int
        var source: ActionSource
        var action: String
        var baselineMs: Double?
        var baselineDrained: Bool
        var candidateMs: Double?
        var candidateDrained: Bool

        init(_ drain: RunComparison.Drain) {
            fault = drain.fault
            source = drain.source
            action = drain.action
            baselineMs = drain.baseline
            baselineDrained = drain.baselineDrained
            candidateMs = drain.candidate
            candidateDrained = drain.candidateDrained
        }

        static let example = Drain(
            RunComparison.Drain(
                fault: 0, source: .timeline, action: "", baseline: nil, baselineDrained: false, candidate: nil,
                candidateDrained: false))
        static let notes = [
            "fault": APINote("The fault's number, as the reports' `faults` give it."),
            "baseline_ms": APINote(
                "Virtual ms the baseline's backlog took to drain after the fault ended (to the run's end when it "
                    + "did not: `baseline_drained` false); null: the baseline had no such fault."),
            "candidate_ms": APINote("The same for the candidate."),
        ]
    }

    struct ThresholdBody: APIBody {
        var expression: String
        var group: String?
        var passed: Bool
        var value: Double?
        var baseline: Double?
        var candidate: Double?
        var noise: Double?

        init(_ item: RunComparison.Judged) {
            expression = item.threshold.expression
            group = item.threshold.group
            passed = item.passed
            value = item.value
            baseline = item.row?.baseline
            candidate = item.row?.candidate
            noise = item.row?.noise
        }

        static let example = ThresholdBody(
            RunComparison.Judged(
                threshold: .defaults[0], row: nil, value: nil, passed: false))
        static let notes = [
            "value": APINote(
                "What was judged: the change as the limit is written (a fraction for `%` and `pp`, the metric's "
                    + "unit for `+N`), or the candidate's value for an unsigned limit; null: nothing to measure."),
            "noise": APINote("The noise to expect in the change, as the row's."),
        ]
    }

    var verdict: Verdict
    var sameRequests: Bool
    var cautions: [String]
    var baseline: Side
    var candidate: Side
    var rows: [Row]
    var drains: [Drain]
    var thresholds: [ThresholdBody]

    package init(_ comparison: RunComparison) {
        verdict =
            comparison.judged.isEmpty ? .compared : comparison.passed ? .passed : .failed
        sameRequests = comparison.sameRequests
        cautions = comparison.setUpDifferences
        baseline = Side(comparison.baseline)
        candidate = Side(comparison.candidate)
        rows = comparison.measured.map(Row.init)
        drains = comparison.drains.map(Drain.init)
        thresholds = comparison.judged.map(ThresholdBody.init)
    }

    package var text: String { String(decoding: APIJSON.bytes(self), as: UTF8.self) + "\n" }

    package static let example: ComparisonBody = {
        let side = RunComparison.Side(file: "", record: RunRecord(.init(), shard: .whole, end: nil, abortedBy: nil))
        return ComparisonBody(RunComparison(baseline: side, candidate: side, thresholds: []))
    }()
    package static let component: String? = "Comparison"
    package static let summary: String? =
        "Two runs' reports side by side (`report compare --json`): every metric, each fault's drain, and the "
        + "thresholds judged on the candidate or its change."
    package static let notes = [
        "verdict": APINote("`passed` or `failed` by the thresholds; `compared` when none was given."),
        "same_requests": APINote(
            "Both runs sent byte-identical requests (the same digest): every difference is the server's."),
        "cautions": APINote("What differs between the runs' set-up (fleet, groups, seed, start, timing)."),
        "rows": APINote("Every metric either run measured, the fleet's first, then each group's both runs have."),
        "drains": APINote("Each fault's drain in both runs, matched by number, source and action."),
    ]
}
