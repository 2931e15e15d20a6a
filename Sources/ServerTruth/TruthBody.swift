import BeekonDevice
import FleetEngine
import Foundation

/// `verify --json` and `verify --report FILE`: the figures, the examples and the verdict.
public struct TruthBody: Encodable {
    public struct ThresholdBody: Encodable {
        var expression: String
        var value: Double?
        var passed: Bool
    }

    var verdict: String
    var devices: Int
    var devicesWithoutTold: Int
    var serverRows: Int
    var source: String
    var fixes: [String: Int]
    var groups: [String: [String: Int]]
    var examples: [String: [TruthResult.Example]]
    var thresholds: [ThresholdBody]

    enum CodingKeys: String, CodingKey {
        case verdict, devices
        case devicesWithoutTold = "devices_without_told"
        case serverRows = "server_rows"
        case source, fixes
        case groups, examples, thresholds
    }

    /// `source` says where the server's rows came from.
    public init(_ result: TruthResult, thresholds: [ThresholdResult], source: String) {
        verdict = thresholds.allSatisfy(\.passed) ? "pass" : "fail"
        devices = result.devices
        devicesWithoutTold = result.devicesWithoutTold
        serverRows = result.serverRows
        self.source = source
        fixes = result.total.keyed
        groups = Dictionary(result.groups.map { ($0.name, $0.counts.keyed) }) { first, _ in first }
        examples = Dictionary(uniqueKeysWithValues: result.examples.map { ($0.key.rawValue, $0.value) })
        self.thresholds = thresholds.map {
            ThresholdBody(expression: $0.threshold.expression, value: $0.value, passed: $0.passed)
        }
    }

    /// Pretty-printed, keys sorted: the same figures give the same bytes.
    public func json() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)) ?? Data("{}".utf8)
    }
}

extension TruthResult {
    /// The summary for a person: each category, the server's own figures, the examples of each
    /// problem and each threshold.
    public func lines(thresholds: [ThresholdResult], source: String) -> [String] {
        var lines = [
            "verify: \(devices) devices, \(total.fixesTotal) fixes told or pending; the server's rows: "
                + "\(serverRows) (\(source))"
        ]
        if devicesWithoutTold > 0 {
            lines.append(
                "verify: \(devicesWithoutTold) devices' stores predate told records: their \(total.unrecorded) "
                    + "rows are not judged")
        }
        for verdict in FixVerdict.allCases {
            let count = total.fixes[verdict, default: 0]
            let mark = verdict.isProblem ? (count == 0 ? "✓" : "✗") : " "
            lines.append("  \(mark) \(Self.padded(count)) \(verdict.meaning)")
        }
        let server: [(Problem, Int, String)] = [
            (.duplicates, total.duplicates, "fix ids stored more than once (\(total.duplicateRows) extra rows)"),
            (.misattributed, total.misattributed, "fix ids stored under another install id than their device's"),
            (.foreign, total.foreign, "rows no device of this run sent (foreign)"),
        ]
        for (_, count, meaning) in server {
            lines.append("  \(count == 0 ? "✓" : "✗") \(Self.padded(count)) \(meaning)")
        }
        for (name, counts) in groups {
            let problems = [
                ("lost", counts.fixes[.lost, default: 0]), ("duplicates", counts.duplicates),
                ("stored though rejected", counts.fixes[.storedThoughRejected, default: 0]),
                ("misattributed", counts.misattributed),
            ].filter { $0.1 > 0 }
            guard !problems.isEmpty else { continue }
            lines.append("  group \(name): " + problems.map { "\($0.0) \($0.1)" }.joined(separator: ", "))
        }
        for problem in Problem.allCases {
            let shown = examples[problem, default: []]
            guard !shown.isEmpty else { continue }
            lines.append("examples, \(problem.rawValue):")
            for example in shown {
                var line = "  install \(example.installID.isEmpty ? "(none)" : example.installID) fix \(example.fixID)"
                if let batch = example.batchID { line += " batch \(batch)" }
                if let at = example.toldAt { line += " told at \(at)" }
                line += " stored \(example.stored)×"
                if let row = example.line { line += " (line \(row))" }
                lines.append(line)
            }
        }
        lines.append("thresholds:")
        lines += thresholds.map { "  " + $0.line }
        let failed = thresholds.filter { !$0.passed }.count
        lines.append(
            failed == 0
                ? "verify: passed: \(thresholds.count) of \(thresholds.count) thresholds met"
                : "verify: failed: \(failed) of \(thresholds.count) thresholds not met (exit 99)")
        return lines
    }

    static func padded(_ count: Int) -> String {
        let text = String(count)
        return String(repeating: " ", count: max(0, 9 - text.count)) + text
    }
}

extension TruthCounts {
    /// Every fix the devices' side knows, in all categories.
    public var fixesTotal: Int { fixes.values.reduce(0, +) }
}
