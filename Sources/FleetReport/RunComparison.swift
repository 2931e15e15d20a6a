import BeekonDevice
import FleetDescription
import FleetEngine
import Foundation
import ServerTruth

/// Two runs side by side (`report compare`, `run --baseline`): every metric of the threshold
/// vocabulary for the fleet and each group both have, each fault's drain, the server's store
/// when both were verified, and thresholds judged on the candidate or its change.
package struct RunComparison: Sendable {
    /// One run as compared: its exact record, and what `--verify` found of the server's store.
    package struct Side: Sendable {
        package var file: String
        package var record: RunRecord
        package var truth: Truth?
        /// The digest of every request it sent (computed once: it sorts every device's).
        package let digest: String

        package init(file: String, record: RunRecord, truth: Truth? = nil) {
            self.file = file
            self.record = record
            self.truth = truth
            digest = record.metrics.sent.text
        }

    }

    /// The report's `server_truth`: the run's figures, each group's, and the rows the server held.
    package struct Truth: Sendable {
        package var fleet: TruthCounts
        package var groups: [String: TruthCounts]
        package var serverRows: Int

        /// What `run --verify` found of this run's server store.
        package init(_ result: TruthResult) {
            fleet = result.total
            groups = Dictionary(result.groups.map { ($0.name, $0.counts) }) { first, _ in first }
            serverRows = result.serverRows
        }

        init(fleet: TruthCounts, groups: [String: TruthCounts], serverRows: Int) {
            self.fleet = fleet
            self.groups = groups
            self.serverRows = serverRows
        }

        /// Nil when the report has no `server_truth` (or one this build cannot read).
        package static func read(report text: Data) -> Truth? {
            guard let report = try? JSONSerialization.jsonObject(with: text) as? [String: Any],
                let truth = report["server_truth"] as? [String: Any],
                let serverRows = truth["server_rows"] as? Int,
                let fleet = (truth["fixes"] as? [String: Int]).flatMap(TruthCounts.init(keyed:))
            else { return nil }
            var groups: [String: TruthCounts] = [:]
            for (name, figures) in truth["groups"] as? [String: [String: Int]] ?? [:] {
                groups[name] = TruthCounts(keyed: figures)
            }
            return Truth(fleet: fleet, groups: groups, serverRows: serverRows)
        }
    }

    /// How long the backlog took to drain after one fault, in each run (virtual ms; a fault
    /// still draining at the end counts to the end, `drained` false).
    package struct Drain: Sendable, Hashable {
        package var fault: Int
        package var source: ActionSource
        package var action: String
        package var baseline: Double?
        package var baselineDrained: Bool
        package var candidate: Double?
        package var candidateDrained: Bool

        package var delta: Double? { Threshold.Change.delta.measure(from: baseline, to: candidate) }
        package var relative: Double? { Threshold.Change.relative.measure(from: baseline, to: candidate) }
    }

    /// A threshold checked on the comparison: its row, the value it judged (the change, for a
    /// signed limit), and whether it held.
    package struct Judged: Sendable {
        package var threshold: Threshold
        package var row: MetricComparison?
        package var value: Double?
        package var passed: Bool

        /// Failed by a change no larger than the noise to expect.
        package var failedWithinNoise: Bool { !passed && row?.withinNoise == true }
    }

    package var baseline: Side
    package var candidate: Side
    package var rows: [MetricComparison]
    package var drains: [Drain]
    package var judged: [Judged]

    package init(baseline: Side, candidate: Side, thresholds: [Threshold]) {
        self.baseline = baseline
        self.candidate = candidate
        let (base, other) = (baseline.record, candidate.record)
        let sameness = MetricComparison.Sameness(
            sameRequests: baseline.digest == candidate.digest,
            modelled: base.deterministic == true && other.deterministic == true)
        var rows = MetricComparison.all(
            baseline: base.metrics, baselineGroups: base.groups, candidate: other.metrics,
            candidateGroups: other.groups, sameness: sameness)
        rows += Self.truthRows(baseline.truth, candidate.truth, groups: base.groups, sameness: sameness)
        self.rows = rows
        drains = Self.drains(base, other)
        judged = thresholds.map { threshold in
            let row = rows.first { $0.metric == threshold.metric && $0.group == threshold.group }
            let value = threshold.changed(from: row?.baseline, to: row?.candidate)
            return Judged(
                threshold: threshold, row: row, value: value,
                passed: value.map { threshold.comparison.holds($0, threshold.limit) } ?? false)
        }
    }

    /// Both runs sent byte-identical requests: every difference is the server's.
    package var sameRequests: Bool { baseline.digest == candidate.digest }

    package var passed: Bool { judged.allSatisfy(\.passed) }

    /// The rows either run measured.
    package var measured: [MetricComparison] { rows.filter { $0.baseline != nil || $0.candidate != nil } }

    /// The rows whose value moved (or was measured on one side only).
    package var changed: [MetricComparison] { rows.filter(Self.moved) }

    /// A row's value moved, or was measured on one side only.
    static func moved(_ row: MetricComparison) -> Bool {
        guard let delta = row.delta else { return (row.baseline == nil) != (row.candidate == nil) }
        return delta != 0
    }

    /// The server's store, when either run was verified: each figure as a count and a share.
    static func truthRows(
        _ base: Truth?, _ other: Truth?, groups: [String], sameness: MetricComparison.Sameness
    ) -> [MetricComparison] {
        guard base != nil || other != nil else { return [] }
        var rows: [MetricComparison] = []
        func add(_ group: String?, _ baseCounts: TruthCounts?, _ otherCounts: TruthCounts?) {
            for figure in Threshold.Metric.ServerFigure.allCases {
                for share in [Threshold.Metric.Share.count, .rate] {
                    let baseValue = baseCounts?.value(figure, share, serverRows: base?.serverRows ?? 0)
                    let otherValue = otherCounts?.value(figure, share, serverRows: other?.serverRows ?? 0)
                    rows.append(
                        MetricComparison(
                            metric: .server(figure, share), group: group, baseline: baseValue,
                            candidate: otherValue, noise: sameness.sameRequests ? 0 : nil))
                }
            }
        }
        add(nil, base?.fleet, other?.fleet)
        for group in groups {
            add(group, base?.groups[group], other?.groups[group])
        }
        return rows
    }

    /// Each fault's drain in both runs, matched by fault number, source and action.
    static func drains(_ base: RunRecord, _ other: RunRecord) -> [Drain] {
        var rows: [Drain] = base.metrics.drains.map { drain in
            let match = other.metrics.drains.first {
                $0.fault == drain.fault && $0.source == drain.source && $0.action == drain.action
            }
            return Drain(
                fault: drain.fault, source: drain.source, action: drain.action.rawValue,
                baseline: drain.millis(at: base.virtualNow), baselineDrained: drain.drainMillis != nil,
                candidate: match?.millis(at: other.virtualNow), candidateDrained: match?.drainMillis != nil)
        }
        for drain in other.metrics.drains
        where !rows.contains(where: {
            $0.fault == drain.fault && $0.source == drain.source && $0.action == drain.action.rawValue
        }) {
            rows.append(
                Drain(
                    fault: drain.fault, source: drain.source, action: drain.action.rawValue, baseline: nil,
                    baselineDrained: false, candidate: drain.millis(at: other.virtualNow),
                    candidateDrained: drain.drainMillis != nil)
            )
        }
        return rows
    }

    /// Why a threshold cannot be judged on these runs (a group one of them lacks; the server's
    /// store of a run not verified), one line each; empty when every one can be.
    package static func unjudgeable(
        _ thresholds: [Threshold], baseline: Side, candidateGroups: [String], candidateVerified: Bool,
        candidate: String
    ) -> [String] {
        thresholds.compactMap { threshold in
            let needsBaseline = threshold.change != nil
            if let group = threshold.group {
                if !candidateGroups.contains(group) {
                    return "`\(threshold.expression)`: \(candidate) has no group \"\(group)\" (it has "
                        + candidateGroups.map { "\"\($0)\"" }.joined(separator: ", ") + ")"
                }
                if needsBaseline, !baseline.record.groups.contains(group) {
                    return "`\(threshold.expression)`: the baseline \(baseline.file) has no group \"\(group)\""
                }
            }
            guard threshold.metric.isServerTruth else { return nil }
            if !candidateVerified {
                return "`\(threshold.expression)`: \(candidate) did not check the server's store (run --verify)"
            }
            if needsBaseline, baseline.truth == nil {
                return "`\(threshold.expression)`: the baseline \(baseline.file) did not check the server's store "
                    + "(its report has no server_truth; run it with --verify)"
            }
            return nil
        }
    }

    /// What differs between the baseline and a run that should repeat it: the fleet (its name and
    /// groups), the seed, the virtual start (nil: not pinned), the timing. Empty when nothing does.
    package static func mismatches(
        baseline: RunRecord, name: String, groups: [String], seed: UInt64, startedAt: Int64?, modelled: Bool?,
        other: String = "this run"
    ) -> [String] {
        var differ: [String] = []
        if baseline.name != name { differ.append("the fleet: baseline \"\(baseline.name)\", \(other) \"\(name)\"") }
        if baseline.groups != groups {
            func list(_ names: [String]) -> String { names.map { "\"\($0)\"" }.joined(separator: ", ") }
            differ.append("the groups: baseline \(list(baseline.groups)), \(other) \(list(groups))")
        }
        if baseline.seed != seed { differ.append("the seed: baseline \(baseline.seed), \(other) \(seed)") }
        if baseline.startedAt != startedAt {
            let start = startedAt.map { Timestamp.text(unixMillis: $0) } ?? "now (or past an earlier run it resumes)"
            differ.append(
                "the start: baseline \(Timestamp.text(unixMillis: baseline.startedAt)), \(other) \(start) (pin it: "
                    + "--clock-start or the fleet file's clock.start, on a fresh --data)")
        }
        if let modelled, let was = baseline.deterministic, was != modelled {
            func name(_ modelled: Bool) -> String { modelled ? "modelled" : "as-answered" }
            differ.append("the timing: baseline \(name(was)), \(other) \(name(modelled))")
        }
        return differ
    }
}
