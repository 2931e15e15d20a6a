import FleetEngine

extension TruthResult {
    /// The summary for a person: each category, the server's own figures, the examples of each
    /// problem and each threshold.
    public func lines(thresholds: [ThresholdResult], source: String) -> [String] {
        var lines = [
            "verify: \(devices) devices, \(total.fixesTotal) fixes sent or pending; the server's rows: \(serverRows) "
                + "(\(source))"
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
        let server = [
            (total.duplicates, "fix ids stored more than once (\(total.duplicateRows) extra rows)"),
            (total.misattributed, "fix ids stored under another install id than their device's"),
            (total.foreign, "rows no device of this run sent (foreign)"),
        ]
        for (count, meaning) in server {
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
        lines.append("verify: thresholds:")
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
