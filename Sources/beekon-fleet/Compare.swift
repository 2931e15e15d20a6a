import ArgumentParser
import FleetCommandLine
import FleetDescription
import FleetEngine
import FleetReport
import Foundation

/// Two runs' reports side by side, judged by thresholds on the change (WIP for #37).
struct Compare: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compare two runs' reports (`run --report FILE`): every metric side by side, and the change.",
        discussion: """
            With --threshold, judges the candidate: a signed limit is a change from the baseline \
            (`server.latency.p99 < +10%`, `upload.errors.rate < +0.5pp`, `drain.max < +30s`), an \
            unsigned one the candidate's own value. Exits 0 when every threshold is met, 99 when one \
            is not, 64 for files or thresholds it cannot take.
            """)

    @Argument(help: "The baseline run's report.")
    var baseline: String

    @Argument(help: "The candidate run's report.")
    var candidate: String

    @Option(
        name: .customLong("threshold"),
        help: ArgumentHelp("A criterion on the candidate or its change (repeatable).", valueName: "expression"),
        transform: { text in
            do throws(ThresholdProblem) {
                return try Threshold.read(text)
            } catch {
                throw ValidationError("\(error)")
            }
        })
    var thresholds: [Threshold] = []

    @Option(help: ArgumentHelp("Write the thresholds as JUnit XML here (a test case each).", valueName: "file"))
    var junit: String?

    func run() throws {
        let started = Date()
        if let junit { try Run.checkWritable(junit, for: "--junit") }
        let base = try Merge.record(baseline, expected: "a run's report (run --report)")
        let other = try Merge.record(candidate, expected: "a run's report (run --report)")
        let rows = MetricComparison.all(
            baseline: base.metrics, baselineGroups: base.groups, candidate: other.metrics,
            candidateGroups: other.groups)
        let (baseSent, otherSent) = (base.metrics.sent, other.metrics.sent)
        if baseSent.text == otherSent.text {
            print(
                "compare: both runs sent the same \(baseSent.count) requests (digest \(baseSent.text)): "
                    + "every difference is the server's")
        } else {
            print(
                "compare: the runs sent different requests (digest \(baseSent.text), \(baseSent.count) requests; "
                    + "\(otherSent.text), \(otherSent.count)): differences may be the fleet's as well as the server's")
        }
        for row in rows where row.baseline != nil || row.candidate != nil {
            let name = row.metric.description + (row.group.map { "{group: \($0)}" } ?? "")
            let change = row.relative.map { String(format: "%+.1f%%", $0 * 100) } ?? "—"
            print("  \(name): \(Self.text(row.baseline)) → \(Self.text(row.candidate)) (\(change))")
        }
        var cases: [JUnitReport.Case] = []
        if !thresholds.isEmpty { print("compare: thresholds:") }
        for threshold in thresholds {
            let row = rows.first { $0.metric == threshold.metric && $0.group == threshold.group }
            let value = threshold.changed(from: row?.baseline, to: row?.candidate)
            let passed = value.map { threshold.comparison.holds($0, threshold.limit) } ?? false
            let detail =
                "\(Self.change(value, of: threshold)) (\(Self.text(row?.baseline)) → \(Self.text(row?.candidate)))"
            cases.append(JUnitReport.Case(name: threshold.expression, passed: passed, detail: detail))
            print("  \(passed ? "✓" : "✗") \(threshold.expression)  (\(detail))")
        }
        let failed = cases.filter { !$0.passed }.count
        if let junit {
            let report = JUnitReport(
                suite: "beekon-fleet report compare \(baseline) \(candidate)", cases: cases,
                seconds: Date().timeIntervalSince(started))
            guard FileManager.default.createFile(atPath: junit, contents: Data(report.text.utf8)) else {
                throw CommandFailure("--junit \(junit): cannot be written")
            }
        }
        if !thresholds.isEmpty {
            print(
                failed == 0
                    ? "compare: passed: \(cases.count) of \(cases.count) thresholds met"
                    : "compare: failed: \(failed) of \(cases.count) thresholds not met (exit 99)")
        }
        if failed > 0 { throw ExitCode(RunExit.thresholdFailed) }
    }

    /// A threshold's measured change as written: `+17.6%`, `+0.42pp`, `+1500`; the value itself
    /// for an unsigned threshold.
    static func change(_ value: Double?, of threshold: Threshold) -> String {
        guard let value else { return "no data" }
        switch threshold.change {
        case .relative?: return String(format: "%+.1f%%", value * 100)
        case .points?: return String(format: "%+.2fpp", value * 100)
        case .delta?: return (value >= 0 ? "+" : "") + text(value)
        case nil: return text(value)
        }
    }

    static func text(_ value: Double?) -> String {
        guard let value else { return "no data" }
        return value == value.rounded() ? String(Int64(value)) : String(format: "%.4g", value)
    }
}
