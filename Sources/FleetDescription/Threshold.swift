import BeekonDevice

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
        /// `server.latency.p50` … `.max`: real ms the server took to answer an upload, every answer
        /// it gave, heard in time or not: the server's own speed, the same at every warp.
        case serverLatency(fraction: Double, name: String)
        /// `upload.errors.rate` / `.count`: uploads not answered 2xx (statuses, network failures
        /// and injected faults alike), of the uploads the fleet put on the wire: what the fleet's
        /// own timing or limits caused (`fleet.not_sent`, `upload.warp-timeout`) is not the server's.
        case errors(Share)
        /// `upload.status.503.rate` / `.count`: uploads answered this status.
        case status(Int, Share)
        /// `upload.timeout.rate` / `.count` (the server's: no answer within the SDK's timeout in
        /// real time; and `refused`, `reset`, `dns`, `tls`, `other`, `offline`, `injected-timeout`,
        /// `warp-timeout`, `not-sent-connection-cap`, `not-sent-descriptors`,
        /// `not-sent-source-address`, and a modelled network's `injected-dns`, `injected-tls`,
        /// `injected-reset`): uploads that ended so.
        case failure(String, Share)
        /// `fleet.not_sent.rate` / `.count`: uploads the fleet could not put on the wire before
        /// their device gave up (its connection cap, its descriptors, its source addresses): the
        /// fleet's health.
        case notSent(Share)
        /// `upload.count`: uploads whose outcome was heard.
        case uploads
        /// `fixes.admitted`, `.acknowledged`, `.rejected`, `.pending` (at the end), `.expired`,
        /// `.deleted`, `.lost`, `.uninstalled`, `.unaccounted`: the run's fix accounting.
        case fixes(FixCount)
        /// `fixes.acknowledged.per_second`: acknowledged fixes per second of real time.
        case acknowledgedPerSecond
        /// `fixes.age.p50` … `.max`: virtual ms from a fix's timestamp to its batch's
        /// acknowledgement.
        case fixAge(fraction: Double, name: String)
        /// `backlog.max`: the most fixes pending at once.
        case backlogMax
        /// `duplicates.batches` / `.fixes`: batches answered 2xx that the device never heard, sent
        /// again (what the fleet made the server see twice).
        case duplicates(DuplicateCount)
        /// `drain.max`: the longest drain after a fault of the timeline ended, virtual ms (one
        /// still draining counts its time so far).
        case drainMax
        /// `server.lost`, `.duplicates`, `.stored_though_rejected`, `.misattributed`, `.foreign`,
        /// each a count or with `.rate` a share: what the server's store holds against what the
        /// devices were told (`verify`, `run --verify`).
        case server(ServerFigure, Share)

        /// A share of the uploads (0 to 1), or how many.
        public enum Share: String, Sendable, Hashable { case rate, count }
        public enum FixCount: String, Sendable, Hashable, CaseIterable {
            case admitted, acknowledged, rejected, pending, expired, deleted, lost, uninstalled, unaccounted
        }
        public enum DuplicateCount: String, Sendable, Hashable, CaseIterable { case batches, fixes }
        /// A figure of the server's store (`verify`): the share's total is the acknowledged fixes
        /// for `lost`, the rejected for `stored_though_rejected`, the server's rows for `foreign`,
        /// the run's fixes it holds for the others.
        public enum ServerFigure: String, Sendable, Hashable, CaseIterable {
            case lost, duplicates, misattributed, foreign
            case storedThoughRejected = "stored_though_rejected"
        }

        /// Measured against the server's store (`verify`), not the run's own figures.
        public var isServerTruth: Bool {
            if case .server = self { return true }
            return false
        }

        /// The network outcomes an upload can end in, by the label the devices heard.
        public static let failureLabels = [
            "dns", "refused", "timeout", "tls", "reset", "other", "offline", "injected-timeout", "warp-timeout",
            "not-sent-connection-cap", "not-sent-descriptors", "not-sent-source-address", "injected-dns",
            "injected-tls", "injected-reset", "captive-portal", "handover",
        ]
        public static let percentiles: [(String, Double)] = [
            ("p50", 0.5), ("p90", 0.9), ("p95", 0.95), ("p99", 0.99), ("max", 1),
        ]

        public var description: String {
            switch self {
            case .latency(_, let name): "upload.latency.\(name)"
            case .serverLatency(_, let name): "server.latency.\(name)"
            case .notSent(let share): "fleet.not_sent.\(share.rawValue)"
            case .errors(let share): "upload.errors.\(share.rawValue)"
            case .status(let code, let share): "upload.status.\(code).\(share.rawValue)"
            case .failure(let label, let share): "upload.\(label).\(share.rawValue)"
            case .uploads: "upload.count"
            case .fixes(let count): "fixes.\(count.rawValue)"
            case .acknowledgedPerSecond: "fixes.acknowledged.per_second"
            case .fixAge(_, let name): "fixes.age.\(name)"
            case .backlogMax: "backlog.max"
            case .duplicates(let count): "duplicates.\(count.rawValue)"
            case .drainMax: "drain.max"
            case .server(let figure, .count): "server.\(figure.rawValue)"
            case .server(let figure, .rate): "server.\(figure.rawValue).rate"
            }
        }

        /// Whether the value is a duration (written with `ms` or `s`), a share (0 to 1, or a
        /// percentage), or a count or rate per second.
        public var unit: Unit {
            switch self {
            case .latency, .serverLatency, .fixAge, .drainMax: .millis
            case .errors(.rate), .status(_, .rate), .failure(_, .rate), .notSent(.rate), .server(_, .rate): .share
            default: .plain
            }
        }

        public enum Unit: Sendable { case millis, share, plain }

        /// Every metric name, for messages.
        static let vocabulary =
            "upload.latency.p50|p90|p95|p99|max, server.latency.p50|p90|p95|p99|max, upload.errors.rate|count, "
            + "upload.status.NNN.rate|count, upload." + failureLabels.joined(separator: "|") + ".rate|count, "
            + "upload.count, fleet.not_sent.rate|count, "
            + "fixes.admitted|acknowledged|rejected|pending|expired|deleted|lost|unaccounted, "
            + "fixes.acknowledged.per_second, fixes.age.p50|p90|p95|p99|max, backlog.max, duplicates.batches|fixes, "
            + "drain.max, server.lost|duplicates|stored_though_rejected|misattributed|foreign[.rate] (with verify); "
            + "any of them for one group as METRIC{group: NAME}"

        /// The metric named `text`, or nil.
        static func named(_ text: String) -> Metric? {
            let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            switch parts.count {
            case 2 where parts == ["upload", "count"]: return .uploads
            case 2 where parts == ["backlog", "max"]: return .backlogMax
            case 2 where parts == ["drain", "max"]: return .drainMax
            case 2 where parts[0] == "duplicates": return DuplicateCount(rawValue: parts[1]).map { .duplicates($0) }
            case 2 where parts[0] == "fixes": return FixCount(rawValue: parts[1]).map { .fixes($0) }
            case 2 where parts[0] == "server": return ServerFigure(rawValue: parts[1]).map { .server($0, .count) }
            case 3 where parts[0] == "server" && parts[2] == "rate":
                return ServerFigure(rawValue: parts[1]).map { .server($0, .rate) }
            case 3 where parts[0] == "fixes" && parts[1] == "age":
                return percentiles.first { $0.0 == parts[2] }.map { .fixAge(fraction: $0.1, name: $0.0) }
            case 3 where parts[0] == "upload" && parts[1] == "latency":
                return percentiles.first { $0.0 == parts[2] }.map { .latency(fraction: $0.1, name: $0.0) }
            case 3 where parts[0] == "server" && parts[1] == "latency":
                return percentiles.first { $0.0 == parts[2] }.map { .serverLatency(fraction: $0.1, name: $0.0) }
            case 3 where parts[0] == "fleet" && parts[1] == "not_sent":
                return Share(rawValue: parts[2]).map { .notSent($0) }
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

    /// Against a baseline run (`report compare`, `run --baseline`): the limit is a change from
    /// the baseline's value, not a value. Written with a sign: `+10%`, `+0.5pp`, `+30s`, `+100`.
    public enum Change: String, Sendable, Hashable {
        /// `+10%`: (candidate − baseline) ÷ baseline, as a fraction (0.10).
        case relative
        /// `+0.5pp`: a share's change in percentage points, as a fraction (0.005).
        case points
        /// `+30s`, `+100`: candidate − baseline, in the metric's unit.
        case delta

        /// The change from `baseline` to `candidate`: nil when either measured nothing, or for a
        /// relative change from 0 to more.
        public func measure(from baseline: Double?, to candidate: Double?) -> Double? {
            guard let baseline, let candidate else { return nil }
            switch self {
            case .delta, .points: return candidate - baseline
            case .relative:
                if baseline == 0 { return candidate == 0 ? 0 : nil }
                return (candidate - baseline) / abs(baseline)
            }
        }
    }

    public var metric: Metric
    /// Nil: the limit is the value's; otherwise the change's from a baseline run.
    public var change: Change?
    /// The group it is checked on (`METRIC{group: NAME}`); nil for the whole fleet.
    public var group: String?
    public var comparison: Comparison
    /// In the metric's unit: ms for latencies, 0 to 1 for shares.
    public var limit: Double
    /// As written (trimmed), for the summary and the report.
    public var expression: String
    /// k6's `abortOnFail`: the run stops as soon as this fails (checked every real second), once
    /// `delayAbortEvalMillis` of virtual time has passed since the start.
    public var abortOnFail = false
    /// k6's `delayAbortEval`: virtual ms from the start before an abort is considered.
    public var delayAbortEvalMillis: Int64 = 0

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
        var name = String(expression[..<range.lowerBound]).trimmingSpaces
        let valueText = String(expression[range.upperBound...]).trimmingSpaces
        let group = try Self.group(in: &name, of: expression)
        guard let metric = Metric.named(name) else {
            throw ThresholdProblem(
                expression: expression, problem: "\"\(name)\" is not a metric", expected: "one of " + Metric.vocabulary)
        }
        if let sign = valueText.first, sign == "+" || sign == "-" {
            let (change, limit) = try Self.change(valueText, of: metric, in: expression)
            var threshold = Threshold(
                metric: metric, group: group, comparison: comparison, limit: limit, expression: expression)
            threshold.change = change
            return threshold
        }
        let limit = try Self.value(valueText, of: metric, in: expression)
        return Threshold(metric: metric, group: group, comparison: comparison, limit: limit, expression: expression)
    }

    /// Takes `{group: NAME}` (k6's tag filter, with the one tag a fleet has) off the end of
    /// `name` and returns NAME; nil when there is none.
    private static func group(in name: inout String, of expression: String) throws(ThresholdProblem) -> String? {
        guard let open = name.firstIndex(of: "{") else { return nil }
        let filter = String(name[open...])
        name = String(name[..<open]).trimmingSpaces
        let expected = "a group filter such as `upload.latency.p99{group: android} < 500ms`"
        guard filter.hasSuffix("}") else {
            throw ThresholdProblem(
                expression: expression, problem: "has `\(filter)` with no closing }", expected: expected)
        }
        let inner = filter.dropFirst().dropLast()
        let parts = inner.split(separator: ":", maxSplits: 1).map { String($0).trimmingSpaces }
        guard parts.count == 2, parts[0] == "group" else {
            throw ThresholdProblem(
                expression: expression, problem: "filters on `\(inner)`, which is not `group: NAME`", expected: expected
            )
        }
        guard !parts[1].isEmpty, !parts[1].contains(where: { $0 == "{" || $0 == "}" || $0 == "," }) else {
            throw ThresholdProblem(
                expression: expression, problem: "names no group in `\(filter)`", expected: expected)
        }
        return parts[1]
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
            for (unit, millis) in [("ms", 1.0), ("s", 1000), ("m", 60_000), ("h", 3_600_000)] where text.hasSuffix(unit)
            {
                number = String(text.dropLast(unit.count))
                scale = millis
                break
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
        case .millis: expected = "a duration such as 500ms, 1.5s, 10m or 2h (ms without a unit)"
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

    /// A signed change from the baseline: `+10%` relative, `+0.5pp` points (shares only), or a
    /// delta in the metric's unit (`+30s`, `-2`).
    private static func change(_ text: String, of metric: Metric, in expression: String) throws(ThresholdProblem)
        -> (Change, Double)
    {
        let negative = text.hasPrefix("-")
        let body = String(text.dropFirst()).trimmingSpaces
        let expected =
            "a change from the baseline: +10% (relative), +0.5pp (a share's points), or a delta in the metric's "
            + "unit such as +30s or +100"
        let change: Change
        var number = body
        var scale = 1.0
        if body.hasSuffix("pp") {
            guard metric.unit == .share else {
                throw ThresholdProblem(
                    expression: expression,
                    problem: "\"\(text)\": points (pp) are a share's change; \(metric) is "
                        + "not a share", expected: expected)
            }
            change = .points
            number = String(body.dropLast(2))
            scale = 0.01
        } else if body.hasSuffix("%") {
            change = .relative
            number = String(body.dropLast())
            scale = 0.01
        } else {
            change = .delta
            if metric.unit == .share {
                throw ThresholdProblem(
                    expression: expression, problem: "\"\(text)\": a share's change is +N% (relative) or +Npp (points)",
                    expected: expected)
            }
            let magnitude = try value(body, of: metric, in: expression)
            return (change, negative ? -magnitude : magnitude)
        }
        let read: Double
        do throws(NumberProblem) {
            read = try limitRange.read(number.trimmingSpaces) * scale
        } catch {
            throw ThresholdProblem(expression: expression, problem: "\"\(text)\" is not a change", expected: expected)
        }
        return (change, negative ? -read : read)
    }

    /// What a change threshold measures: the candidate's value against the baseline's (nil when
    /// either has nothing to measure, or a relative change from 0 to more).
    public func changed(from baseline: Double?, to candidate: Double?) -> Double? {
        guard let change else { return candidate }
        return change.measure(from: baseline, to: candidate)
    }

    /// The thresholds a real server should meet, reported when none are given (they fail the
    /// run only with `--strict`): nothing lost, fewer than 5 % of uploads failing.
    public static let defaults: [Threshold] = [
        Threshold(metric: .fixes(.lost), group: nil, comparison: .equal, limit: 0, expression: "fixes.lost == 0"),
        Threshold(
            metric: .errors(.rate), group: nil, comparison: .less, limit: 0.05,
            expression: "upload.errors.rate < 0.05"),
    ]
}

extension String {
    var trimmingSpaces: String {
        var text = Substring(self)
        while text.first?.isWhitespace == true { text = text.dropFirst() }
        while text.last?.isWhitespace == true { text = text.dropLast() }
        return String(text)
    }
}

/// As a shard's report carries it for `report merge`: its expression, read again (so a file
/// cannot carry a threshold `read` would refuse), and its abort settings.
extension Threshold: Codable {
    private enum CodingKeys: String, CodingKey {
        case expression, abortOnFail, delayAbortEvalMillis
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(expression, forKey: .expression)
        try container.encode(abortOnFail, forKey: .abortOnFail)
        try container.encode(delayAbortEvalMillis, forKey: .delayAbortEvalMillis)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        do {
            self = try Self.read(try container.decode(String.self, forKey: .expression))
        } catch let problem as ThresholdProblem {
            throw DecodingError.dataCorruptedError(
                forKey: .expression, in: container, debugDescription: problem.description)
        }
        abortOnFail = try container.decode(Bool.self, forKey: .abortOnFail)
        delayAbortEvalMillis = try container.decode(Int64.self, forKey: .delayAbortEvalMillis)
    }
}
