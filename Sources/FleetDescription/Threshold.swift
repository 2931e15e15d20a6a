import BeekonDevice
import Foundation

/// A pass/fail criterion of a run, as k6 has them: `upload.latency.p99 < 500ms`,
/// `upload.errors.rate < 0.01`, `fixes.lost == 0`. Given with `--threshold` (repeatable) and in
/// the fleet file's `thresholds:`; checked at the end of the run, where one that fails makes the
/// run exit 99.
public struct Threshold: Sendable, Hashable, CustomStringConvertible {
    /// What a threshold measures, over the whole run.
    public enum Metric: Sendable, Hashable, CustomStringConvertible {
        /// `upload.latency.p50` … `.max`: virtual ms from an upload's send to the outcome its
        /// device heard (`fraction` 1 for the maximum).
        case latency(fraction: Double, name: String)
        /// `upload.errors.rate` / `.count`: uploads not answered 2xx (statuses and network
        /// failures alike).
        case errors(Share)
        /// `upload.status.503.rate` / `.count`: uploads answered this status.
        case status(Int, Share)
        /// `upload.timeout.rate` / `.count` (and `refused`, `reset`, `dns`, `tls`,
        /// `too-many-open-files`, `other`, `offline`): uploads that ended so.
        case failure(String, Share)
        /// `upload.count`: uploads whose outcome was heard.
        case uploads
        /// `fixes.admitted`, `fixes.acknowledged`, `fixes.lost`, `fixes.pending` (at the end).
        case fixes(FixCount)
        /// `fixes.acknowledged.per_second`: acknowledged fixes per second of real time.
        case acknowledgedPerSecond

        /// A share of the uploads (0 to 1), or how many.
        public enum Share: String, Sendable, Hashable { case rate, count }
        public enum FixCount: String, Sendable, Hashable, CaseIterable { case admitted, acknowledged, lost, pending }

        /// The network outcomes an upload can end in, by the label the devices heard.
        public static let failureLabels = [
            "timeout", "refused", "reset", "dns", "tls", "too-many-open-files", "other", "offline",
        ]
        static let percentiles: [(String, Double)] = [
            ("p50", 0.5), ("p90", 0.9), ("p95", 0.95), ("p99", 0.99), ("max", 1),
        ]

        public var description: String {
            switch self {
            case .latency(_, let name): "upload.latency.\(name)"
            case .errors(let share): "upload.errors.\(share.rawValue)"
            case .status(let code, let share): "upload.status.\(code).\(share.rawValue)"
            case .failure(let label, let share): "upload.\(label).\(share.rawValue)"
            case .uploads: "upload.count"
            case .fixes(let count): "fixes.\(count.rawValue)"
            case .acknowledgedPerSecond: "fixes.acknowledged.per_second"
            }
        }

        /// Whether the value is a duration (written with `ms` or `s`), a share (0 to 1, or a
        /// percentage), or a count or rate per second.
        var unit: Unit {
            switch self {
            case .latency: .millis
            case .errors(.rate), .status(_, .rate), .failure(_, .rate): .share
            default: .plain
            }
        }

        enum Unit { case millis, share, plain }

        /// Every metric name, for messages.
        static let vocabulary =
            "upload.latency.p50|p90|p95|p99|max, upload.errors.rate|count, upload.status.NNN.rate|count, "
            + "upload.timeout|refused|reset|dns|tls|too-many-open-files|other|offline.rate|count, upload.count, "
            + "fixes.admitted|acknowledged|lost|pending, fixes.acknowledged.per_second"

        /// The metric named `text`, or nil.
        static func named(_ text: String) -> Metric? {
            let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            switch parts.count {
            case 2 where parts == ["upload", "count"]: return .uploads
            case 2 where parts[0] == "fixes": return FixCount(rawValue: parts[1]).map { .fixes($0) }
            case 3 where parts[0] == "upload" && parts[1] == "latency":
                return percentiles.first { $0.0 == parts[2] }.map { .latency(fraction: $0.1, name: $0.0) }
            case 3 where parts[0] == "upload" && parts[1] == "errors":
                return Share(rawValue: parts[2]).map { .errors($0) }
            case 3 where parts[0] == "upload" && failureLabels.contains(parts[1]):
                return Share(rawValue: parts[2]).map { .failure(parts[1], $0) }
            case 3 where parts == ["fixes", "acknowledged", "per_second"]: return .acknowledgedPerSecond
            case 4 where parts[0] == "upload" && parts[1] == "status":
                guard parts[2].count == 3, let code = Int(parts[2]), (100...599).contains(code),
                    let share = Share(rawValue: parts[3])
                else { return nil }
                return .status(code, share)
            default: return nil
            }
        }
    }

    /// How the value compares with the limit.
    public enum Comparison: String, Sendable, Hashable, CaseIterable {
        case lessOrEqual = "<="
        case greaterOrEqual = ">="
        case equal = "=="
        case less = "<"
        case greater = ">"

        public func holds(_ value: Double, _ limit: Double) -> Bool {
            switch self {
            case .less: value < limit
            case .lessOrEqual: value <= limit
            case .greater: value > limit
            case .greaterOrEqual: value >= limit
            case .equal: value == limit
            }
        }
    }

    public var metric: Metric
    public var comparison: Comparison
    /// In the metric's unit: ms for latencies, 0 to 1 for shares.
    public var limit: Double
    /// As written (trimmed), for the summary and the report.
    public var expression: String

    public var description: String { expression }

    /// The limit of a share or a count: every number a threshold compares against.
    static let limitRange = NumberRange(0...1e15)

    /// Reads `METRIC OP VALUE`: `upload.latency.p99 < 500ms`, `upload.errors.rate < 1%`,
    /// `fixes.lost == 0`.
    public static func read(_ text: String) throws(ThresholdProblem) -> Threshold {
        let expression = text.trimmingSpaces
        guard !expression.isEmpty else {
            throw ThresholdProblem(expression: text, problem: "is empty", expected: Self.shape)
        }
        guard
            let (comparison, range) = Comparison.allCases.lazy.compactMap({ comparison in
                expression.range(of: comparison.rawValue).map { (comparison, $0) }
            }).min(by: { $0.1.lowerBound < $1.1.lowerBound })
        else {
            throw ThresholdProblem(
                expression: expression, problem: "has no comparison", expected: "one of <, <=, >, >=, ==: " + Self.shape
            )
        }
        let name = String(expression[..<range.lowerBound]).trimmingSpaces
        let valueText = String(expression[range.upperBound...]).trimmingSpaces
        if name.contains("{") {
            throw ThresholdProblem(
                expression: expression,
                problem: "asks for one group (`{group: …}`), which thresholds do not take yet",
                expected: "a threshold over the whole fleet")
        }
        guard let metric = Metric.named(name) else {
            throw ThresholdProblem(
                expression: expression, problem: "\"\(name)\" is not a metric", expected: "one of " + Metric.vocabulary)
        }
        let limit = try Self.value(valueText, of: metric, in: expression)
        return Threshold(metric: metric, comparison: comparison, limit: limit, expression: expression)
    }

    static let shape = "METRIC OP VALUE, such as `upload.latency.p99 < 500ms` or `upload.errors.rate < 0.01`"

    /// The limit in the metric's unit.
    private static func value(_ text: String, of metric: Metric, in expression: String) throws(ThresholdProblem)
        -> Double
    {
        var number = text
        var scale = 1.0
        switch metric.unit {
        case .millis:
            if text.hasSuffix("ms") {
                number = String(text.dropLast(2))
            } else if text.hasSuffix("s") {
                number = String(text.dropLast())
                scale = 1000
            }
        case .share:
            if text.hasSuffix("%") {
                number = String(text.dropLast())
                scale = 0.01
            }
        case .plain: break
        }
        let expected: String
        switch metric.unit {
        case .millis: expected = "a duration such as 500ms or 1.5s (ms without a unit)"
        case .share: expected = "a share from 0 to 1, or a percentage such as 1%"
        case .plain: expected = "a number from 0"
        }
        let read: Double
        do throws(NumberProblem) {
            read = try limitRange.read(number.trimmingSpaces) * scale
        } catch {
            throw ThresholdProblem(expression: expression, problem: "\"\(text)\" is not a limit", expected: expected)
        }
        if metric.unit == .share, read > 1 {
            throw ThresholdProblem(expression: expression, problem: "\"\(text)\" is more than all", expected: expected)
        }
        return read
    }

    /// The thresholds a real server should meet, reported when none are given (they fail the
    /// run only with `--strict`): nothing lost, fewer than 5 % of uploads failing.
    public static let defaults: [Threshold] = [
        Threshold(metric: .fixes(.lost), comparison: .equal, limit: 0, expression: "fixes.lost == 0"),
        Threshold(metric: .errors(.rate), comparison: .less, limit: 0.05, expression: "upload.errors.rate < 0.05"),
    ]
}

/// Why a threshold cannot be read: the expression, what is wrong, and what was expected.
public struct ThresholdProblem: Error, Sendable, Hashable, CustomStringConvertible {
    public var expression: String
    public var problem: String
    public var expected: String

    public var description: String { "threshold `\(expression)` \(problem); expected \(expected)" }
}

extension String {
    fileprivate var trimmingSpaces: String {
        var text = Substring(self)
        while text.first?.isWhitespace == true { text = text.dropFirst() }
        while text.last?.isWhitespace == true { text = text.dropLast() }
        return String(text)
    }
}
