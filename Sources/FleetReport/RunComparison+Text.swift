import FleetDescription
import FleetEngine

/// The comparison as people read it: lines for the terminal, Markdown for a CI job's page.
extension RunComparison {
    /// Whether both runs sent the same requests, said once for every output.
    package var requestsLine: String {
        let (base, other) = (baseline.record.metrics.sent, candidate.record.metrics.sent)
        if sameRequests {
            return
                "both runs sent the same \(base.count) requests (digest \(baseline.digest)): every difference is the "
                + "server's; the noise to expect is the server's real time alone"
        }
        return "the runs sent different requests (baseline \(base.count), digest \(baseline.digest); candidate "
            + "\(other.count), digest \(candidate.digest)): differences may be the fleet's as well as the server's "
            + "(± the noise to expect)"
    }

    /// What differs between the two runs' set-up (fleet, seed, start, timing, virtual length),
    /// said as a caution.
    package var setUpDifferences: [String] {
        let (base, other) = (baseline.record, candidate.record)
        var differ = Self.mismatches(
            baseline: base, name: other.name, groups: other.groups, seed: other.seed, startedAt: other.startedAt,
            modelled: other.deterministic, other: "candidate")
        let lengths = [base, other].map { $0.virtualNow - $0.startedAt }
        if lengths[0] != lengths[1] {
            differ.append(
                "the virtual length: baseline \(FleetDuration.text(millis: lengths[0])), candidate "
                    + "\(FleetDuration.text(millis: lengths[1])) (counts and the backlog follow it)")
        }
        return differ
    }

    /// The rows that changed (every row a run measured, with `all`), then the drains and the
    /// thresholds, one line each.
    package func lines(all: Bool) -> [String] {
        var lines = [requestsLine]
        for difference in setUpDifferences { lines.append("caution: the runs differ in \(difference)") }
        let measured = self.measured
        let shown = all ? measured : changed
        lines.append(
            all
                ? "every metric either run measured (\(measured.count)): baseline → candidate, the change"
                : "\(shown.count) of \(measured.count) metrics changed (--all lists every one): baseline → "
                    + "candidate, the change")
        let width = shown.map { Self.name($0).count }.max() ?? 0
        for row in shown {
            let name = Self.name(row).padding(toLength: width, withPad: " ", startingAt: 0)
            lines.append(
                "  \(name)  \(Self.value(row.baseline, row.metric)) → \(Self.value(row.candidate, row.metric))  "
                    + Self.change(row))
        }
        for drain in drains { lines.append("  " + Self.drainLine(drain)) }
        if !judged.isEmpty { lines.append("thresholds:") }
        for item in judged { lines.append("  " + Self.judgedLine(item)) }
        let failed = judged.filter { !$0.passed }.count
        if !judged.isEmpty {
            lines.append(
                failed == 0
                    ? "passed: \(judged.count) of \(judged.count) thresholds met"
                    : "failed: \(failed) of \(judged.count) thresholds not met (exit 99)")
        }
        return lines
    }

    /// `server.latency.p99{group: commuters}`.
    static func name(_ row: MetricComparison) -> String {
        row.metric.description + (row.group.map { "{group: \($0)}" } ?? "")
    }

    static func value(_ value: Double?, _ metric: Threshold.Metric) -> String {
        ThresholdResult.text(value, of: metric)
    }

    /// `+1.8ms (+14.6%) ±2.1ms`, `+0.42pp ±0.30pp`, `0 (exact)`: the change in the metric's unit
    /// (a share's in percentage points), relative, and the noise to expect.
    static func change(_ row: MetricComparison) -> String {
        guard let delta = row.delta else { return "" }
        if delta == 0 { return row.noise == 0 ? "0 (exact)" : "0" }
        var text = signed(delta, row.metric)
        if row.metric.unit != .share, let relative = row.relative { text += " (" + percent(relative) + ")" }
        if let noise = row.noise, noise > 0 {
            text += " ±" + unsigned(noise, row.metric) + (row.withinNoise ? ", within noise" : "")
        }
        return text
    }

    /// The change alone, for a table: `+1.8ms (+14.6%)`, `+0.42pp`, `—` when a side measured nothing.
    static func changeText(_ row: MetricComparison) -> String {
        var change = row.delta.map { signed($0, row.metric) } ?? "—"
        if row.metric.unit != .share, let relative = row.relative { change += " (\(percent(relative)))" }
        return change
    }

    /// The noise to expect, for a table: `±2.1ms`, `none` (only the server moves it), `unknown`.
    static func noiseText(_ row: MetricComparison) -> String {
        row.noise.map { $0 == 0 ? "none" : "±" + unsigned($0, row.metric) } ?? "unknown"
    }

    /// A change in the metric's unit, with its sign.
    static func signed(_ change: Double, _ metric: Threshold.Metric) -> String {
        (change < 0 ? "-" : "+") + unsigned(abs(change), metric)
    }

    static func unsigned(_ amount: Double, _ metric: Threshold.Metric) -> String {
        if metric.unit == .share { return String(format: "%.2fpp", amount * 100) }
        if metric.unit == .millis { return FleetDuration.display(millis: amount) }
        if metric == .acknowledgedPerSecond { return String(format: "%.1f/s", amount) }
        return amount == amount.rounded() ? String(Int64(amount)) : String(format: "%.1f", amount)
    }

    static func percent(_ fraction: Double) -> String { String(format: "%+.1f%%", fraction * 100) }

    /// A threshold's judged value as its limit is written: `+17.6%`, `+0.42pp`, `+1.5s`; the
    /// value itself for an unsigned limit.
    static func judgedValue(_ item: Judged) -> String {
        guard let value = item.value else { return "no data" }
        switch item.threshold.change {
        case .relative?: return percent(value)
        case .points?: return String(format: "%+.2fpp", value * 100)
        case .delta?: return signed(value, item.threshold.metric)
        case nil: return Self.value(value, item.threshold.metric)
        }
    }

    static func judgedLine(_ item: Judged) -> String {
        let metric = item.threshold.metric
        var detail = judgedValue(item)
        if let row = item.row {
            detail += "; \(value(row.baseline, metric)) → \(value(row.candidate, metric))"
            if let noise = row.noise, noise > 0 { detail += ", noise ±" + unsigned(noise, metric) }
        }
        return "\(item.passed ? "✓" : "✗") \(item.threshold.expression)  (\(detail))"
            + (caution(item).map { " — " + $0 } ?? "")
    }

    /// Why a failed threshold may be chance rather than the server: nil when it passed or is not.
    static func caution(_ item: Judged) -> String? {
        if item.failedWithinNoise { return "within the noise to expect: run longer, or widen the limit" }
        if !item.passed, item.row?.noise == nil, item.threshold.metric.isPercentile {
            return "too few samples to tell this percentile's change from chance: run longer"
        }
        return nil
    }

    /// One run's drain: `1m30s`, `2m (still draining)`, `no such fault`.
    static func drainTime(_ millis: Double?, _ drained: Bool) -> String {
        guard let millis else { return "no such fault" }
        return FleetDuration.display(millis: millis) + (drained ? "" : " (still draining)")
    }

    static func drainLine(_ drain: Drain) -> String {
        let change = drain.delta.map { $0 == 0 ? "  0" : "  " + signed($0, .drainMax) } ?? ""
        return "drain after fault \(drain.fault) (\(drain.source.rawValue) \(drain.action)): "
            + drainTime(drain.baseline, drain.baselineDrained) + " → "
            + drainTime(drain.candidate, drain.candidateDrained) + change
    }

    /// The JUnit test cases: a threshold each.
    package var junitCases: [JUnitReport.Case] {
        judged.map { JUnitReport.Case(name: $0.threshold.expression, passed: $0.passed, detail: Self.judgedLine($0)) }
    }

    /// A Markdown summary for a CI job's page or a pull request: the verdict, the thresholds,
    /// the metrics that changed, the drains, and where the HTML page is.
    package func markdown(title: String, html: String?) -> String {
        let failed = judged.filter { !$0.passed }
        let verdict = judged.isEmpty ? "compared" : failed.isEmpty ? "passed" : "failed"
        var text = "## \(title): \(verdict)\n\n"
        text += "Baseline `\(baseline.file)` → candidate `\(candidate.file)`: \(requestsLine).\n"
        for difference in setUpDifferences { text += "\n**Caution**: the runs differ in \(difference).\n" }
        if !judged.isEmpty {
            text += "\n| | threshold | measured | baseline → candidate |\n|---|---|---|---|\n"
            for item in judged {
                let metric = item.threshold.metric
                let sides = item.row.map { "\(Self.value($0.baseline, metric)) → \(Self.value($0.candidate, metric))" }
                text += "| \(item.passed ? "✓ passed" : "✗ **failed**") | `\(Self.cell(item.threshold.expression))` "
                text += "| \(Self.judgedValue(item))\(item.failedWithinNoise ? " (within noise)" : "") "
                text += "| \(sides ?? "no data") |\n"
            }
        }
        let changed = self.changed
        let measured = self.measured.count
        text += "\n### Metrics that changed (\(changed.count) of \(measured))\n\n"
        if changed.isEmpty {
            text += "None: every metric is the same in both runs.\n"
        } else {
            text += "| metric | baseline | candidate | change | noise to expect |\n|---|---|---|---|---|\n"
            for row in changed {
                text += "| `\(Self.cell(Self.name(row)))` | \(Self.value(row.baseline, row.metric)) "
                text +=
                    "| \(Self.value(row.candidate, row.metric)) | \(Self.changeText(row)) | \(Self.noiseText(row)) |\n"
            }
        }
        let movedDrains = drains.filter { $0.delta != 0 }
        if !movedDrains.isEmpty {
            text += "\n### Drains that changed\n\n"
            for drain in movedDrains { text += "- \(Self.cell(Self.drainLine(drain)))\n" }
        }
        if let html { text += "\nBoth runs' charts on one time axis: [\(Self.cell(html))](\(html))\n" }
        return text
    }

    /// Text safe in a Markdown table cell: `|` escaped, no line breaks.
    static func cell(_ text: String) -> String {
        text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
    }
}

extension Threshold.Metric {
    /// A percentile below the maximum, whose noise needs enough samples to place its rank.
    var isPercentile: Bool {
        switch self {
        case .latency(let fraction, _), .serverLatency(let fraction, _), .fixAge(let fraction, _): fraction < 1
        default: false
        }
    }
}
