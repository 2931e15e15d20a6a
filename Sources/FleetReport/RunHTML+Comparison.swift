import BeekonDevice
import FleetDescription
import FleetEngine
import Foundation

/// `report compare --html FILE`: both runs on one page, built as `run --html` builds one run's
/// (the same style, tables and inlined charts): the verdict, the thresholds, both runs' charts on
/// one axis of virtual time since each run's start, every metric side by side, the drains.
extension RunHTML {
    /// The page for `comparison`; `chartsScript` is web/charts.js's text.
    package static func comparison(_ comparison: RunComparison, chartsScript: String) -> String {
        let (base, other) = (comparison.baseline, comparison.candidate)
        var body =
            base.record.name == other.record.name
            ? "<h1>\(html(base.record.name)): two runs compared</h1>\n"
            : "<h1>\(html(base.record.name)) → \(html(other.record.name))</h1>\n"
        body += verdict(comparison) + "\n" + runsTable(comparison)
        body += "<p>\(html(capitalised(comparison.requestsLine))).</p>\n"
        for difference in comparison.setUpDifferences {
            body += "<p class=\"caution\">Caution: the runs differ in \(html(difference)).</p>\n"
        }
        body += "<h2>Thresholds</h2>\n" + judgedTable(comparison.judged)
        body += "<h2>Over the runs</h2>\n" + chartsSection(comparison)
        body += "<h2>Every metric either run measured</h2>\n" + metricsTable(comparison)
        body += "<h2>Drains after faults</h2>\n" + drainsTable(comparison.drains)
        return document(
            title: "Beekon Fleet comparison: \(base.file) → \(other.file)", body: body,
            data: chartData(comparison), script: chartsScript + "\n" + comparisonScript, extraStyle: comparisonStyle)
    }

    /// Each run's line: its colour on the charts, and the role the legend names.
    struct Line {
        var role: String
        var color: String
        /// The faults' shade when the runs' faults differ.
        var fill: String
        /// The baseline's wider, under the candidate's: identical runs' lines still show both.
        var width: Double
    }

    static let lines = (
        baseline: Line(role: "baseline", color: "#1f5fbf", fill: "rgba(31, 95, 191, 0.12)", width: 4),
        candidate: Line(role: "candidate", color: "#d9480f", fill: "rgba(217, 72, 15, 0.12)", width: 1.6)
    )

    /// The charts, each a figure of both runs from their history rows.
    enum Chart: CaseIterable {
        case serverP99, serverP50, latencyP99, latencyP50, uploads, errors, backlog, ageP99

        var id: String {
            switch self {
            case .serverP99: "chart-server-latency-p99"
            case .serverP50: "chart-server-latency-p50"
            case .latencyP99: "chart-latency-p99"
            case .latencyP50: "chart-latency-p50"
            case .uploads: "chart-uploads"
            case .errors: "chart-errors"
            case .backlog: "chart-pending"
            case .ageP99: "chart-age-p99"
            }
        }

        var title: String {
            switch self {
            case .serverP99: "Server latency p99, the server's own time (real ms)"
            case .serverP50: "Server latency p50, the server's own time (real ms)"
            case .latencyP99: "Upload latency p99, as heard (virtual ms)"
            case .latencyP50: "Upload latency p50, as heard (virtual ms)"
            case .uploads: "Uploads per second, every outcome"
            case .errors: "Upload errors per second (as upload.errors counts: neither 2xx nor the fleet's own)"
            case .backlog: "Backlog (fixes pending)"
            case .ageP99: "Fix age at acknowledgement p99 (virtual s)"
            }
        }

        var unit: String {
            switch self {
            case .serverP99, .serverP50, .latencyP99, .latencyP50: "ms"
            case .uploads, .errors: "uploads/s"
            case .backlog: "fixes"
            case .ageP99: "s"
            }
        }

        /// A row's figure; `width` is the row's, in seconds.
        func value(_ sample: Sample, width: Double) -> Double? {
            let row = sample.row
            switch self {
            case .serverP99: return row.serverLatency.percentile(0.99)
            case .serverP50: return row.serverLatency.percentile(0.5)
            case .latencyP99: return row.latency.percentile(0.99)
            case .latencyP50: return row.latency.percentile(0.5)
            case .uploads: return Double(row.outcomes.values.reduce(0, +)) / width
            case .errors:
                let failed = row.outcomes.filter { !$0.key.isSuccess && !$0.key.isFleetSide }
                return Double(failed.values.reduce(0, +)) / width
            case .backlog: return Double(sample.pending)
            case .ageP99: return ageSeconds(row, 0.99)
            }
        }
    }

    /// Passed, failed (with the exit code `report compare` gives), or compared without thresholds.
    static func verdict(_ comparison: RunComparison) -> String {
        let judged = comparison.judged
        let failed = judged.filter { !$0.passed }.count
        if judged.isEmpty { return "<p>Compared: no threshold was given (--threshold judges the candidate).</p>" }
        if failed == 0 { return "<p class=\"pass\">Passed: every threshold was met (exit 0).</p>" }
        return "<p class=\"fail\">Failed: \(failed) of \(judged.count) thresholds not met (exit 99).</p>"
    }

    /// The two runs, each by its report file and its line's colour: the charts' legend.
    static func runsTable(_ comparison: RunComparison) -> String {
        var text =
            "<table id=\"legend\"><tr><th>Run</th><th>Report</th><th>Fleet</th><th>Virtual start</th><th>Length</th>"
            + "<th>Real s</th><th>Seed</th><th>Requests</th><th>Digest</th></tr>\n"
        for (line, side) in [(lines.baseline, comparison.baseline), (lines.candidate, comparison.candidate)] {
            let record = side.record
            text +=
                "<tr><td><span class=\"swatch \(line.role)\"></span>\(line.role)</td>" + cell(side.file, code: true)
                + cell(record.name)
                + cell(Timestamp.text(unixMillis: record.startedAt))
                + cell(FleetDuration.text(millis: record.virtualNow - record.startedAt), numeric: true)
                + cell(number(record.metrics.realSeconds), numeric: true) + cell(String(record.seed), numeric: true)
                + cell(String(record.metrics.sent.count), numeric: true)
                + cell(side.digest, code: true) + "</tr>\n"
        }
        return text + "</table>\n"
    }

    /// Each threshold: ✓/✗, its value as its limit is written, baseline → candidate, the noise.
    static func judgedTable(_ judged: [RunComparison.Judged]) -> String {
        guard !judged.isEmpty else {
            return "<p class=\"muted\">None was given: --threshold judges the candidate, or its change.</p>\n"
        }
        let cautions = judged.contains { RunComparison.caution($0) != nil }
        let rows = judged.map { item in
            let metric = item.threshold.metric
            var cells = cell(RunComparison.judgedValue(item), numeric: true)
            if let row = item.row {
                cells += cell(
                    RunComparison.value(row.baseline, metric) + " → " + RunComparison.value(row.candidate, metric),
                    numeric: true)
                cells += cell(RunComparison.noiseText(row), numeric: true)
            } else {
                cells += cell("no data") + cell("")
            }
            if cautions { cells += "<td class=\"muted\">\(html(RunComparison.caution(item) ?? ""))</td>" }
            return (item.passed, item.threshold.expression, cells)
        }
        let columns = ["Measured", "Baseline → candidate", "Noise to expect"] + (cautions ? ["Caution"] : [])
        return thresholdsTable(columns: columns, rows)
    }

    /// The charts' figures, with the axis and what the history holds said beside them.
    static func chartsSection(_ comparison: RunComparison) -> String {
        let widths = Set([comparison.baseline, comparison.candidate].map { $0.record.metrics.history.widthMillis })
        let rows = widths.sorted().map { number(Double($0) / 1000) }.joined(separator: " and ")
        let faults =
            sameFaults(comparison) ? "faults shaded (the same in both runs)" : "each run's faults shaded in its colour"
        var text =
            "<p class=\"muted\">Both runs on one axis: virtual time since each run's own start (+10m: ten virtual "
            + "minutes in), in rows of \(rows) virtual s; \(faults). The server's latency is its own real time "
            + "for the uploads answered in each row; the upload latency is what the devices heard.</p>\n"
        for chart in Chart.allCases {
            text +=
                "<figure><figcaption>\(html(chart.title))</figcaption><canvas id=\"\(chart.id)\"></canvas></figure>\n"
        }
        return text
    }

    /// Both runs' faults start and end at the same instants since their start, on the same devices.
    static func sameFaults(_ comparison: RunComparison) -> Bool {
        let (base, other) = (comparison.baseline.record, comparison.candidate.record)
        return base.metrics.timeline.map { band($0, offset: base.startedAt) }
            == other.metrics.timeline.map { band($0, offset: other.startedAt) }
    }

    /// The charts' data: per chart, points at ms since each run's start carrying each run's value
    /// (a run with no row at an instant leaves its key out); the lines' styles; the faults.
    static func chartData(_ comparison: RunComparison) -> String {
        let sides = [(lines.baseline, comparison.baseline.record), (lines.candidate, comparison.candidate.record)]
        let rows = sides.map { _, record in samples(record.snapshot) }
        var charts: [String] = []
        for chart in Chart.allCases {
            var points: [Int64: [String: String]] = [:]
            for ((line, record), samples) in zip(sides, rows) {
                let history = record.metrics.history
                let width = Double(history.widthMillis) / 1000
                // The start as a point: the axis begins at 0, the backlog at what was carried over.
                points[0, default: [:]][line.role] = chart == .backlog ? String(history.pendingAtStart) : "null"
                for sample in samples {
                    points[sample.end - record.startedAt, default: [:]][line.role] = optional(
                        chart.value(sample, width: width))
                }
            }
            let drawn = points.sorted { $0.key < $1.key }.map { t, values in
                let v = sides.compactMap { line, _ in values[line.role].map { "\(json(line.role)):\($0)" } }
                return "{\"t\":\(t),\"v\":{\(v.joined(separator: ","))}}"
            }
            charts.append(
                "{\"id\":\(json(chart.id)),\"unit\":\(json(chart.unit)),\"integer\":\(chart == .backlog),"
                    + "\"points\":[\(drawn.joined(separator: ","))]}")
        }
        let series = sides.map { line, _ in
            "\(json(line.role)):{\"color\":\(json(line.color)),\"width\":\(number(line.width))}"
        }
        var bands: [String] = []
        if sameFaults(comparison) {
            let record = comparison.candidate.record
            bands = record.metrics.timeline.map { band($0, offset: record.startedAt) }
        } else {
            for (line, record) in sides {
                bands += record.metrics.timeline.map {
                    band($0, offset: record.startedAt, prefix: line.role + ": ", fill: line.fill)
                }
            }
        }
        return "{\"series\":{\(series.joined(separator: ","))},\"charts\":[\(charts.joined(separator: ","))],"
            + "\"bands\":[\(bands.joined(separator: ","))]}"
    }

    /// Every row either run measured, those that changed first (and marked).
    static func metricsTable(_ comparison: RunComparison) -> String {
        let measured = comparison.measured
        let changed = measured.filter(RunComparison.moved)
        var text =
            "<p class=\"muted\">\(changed.count) of \(measured.count) changed, listed first.</p>\n"
            + "<table id=\"metrics\"><tr><th>Metric</th><th>Group</th><th>Baseline</th><th>Candidate</th>"
            + "<th>Change</th><th>Noise to expect</th></tr>\n"
        for row in changed + measured.filter({ !RunComparison.moved($0) }) {
            let moved = RunComparison.moved(row)
            text +=
                "<tr\(moved ? " class=\"changed\"" : "")>" + cell(row.metric.description, code: true)
                + cell(row.group ?? "fleet") + cell(RunComparison.value(row.baseline, row.metric), numeric: true)
                + cell(RunComparison.value(row.candidate, row.metric), numeric: true)
                + cell(moved ? RunComparison.changeText(row) : "0", numeric: true)
                + cell(RunComparison.noiseText(row), numeric: true) + "</tr>\n"
        }
        return text + "</table>\n"
    }

    /// Each fault's drain in both runs.
    static func drainsTable(_ drains: [RunComparison.Drain]) -> String {
        guard !drains.isEmpty else { return "<p class=\"muted\">No fault ended in either run.</p>\n" }
        var text =
            "<table id=\"drains\"><tr><th>Fault</th><th>Source</th><th>Action</th><th>Baseline</th><th>Candidate</th>"
            + "<th>Change</th></tr>\n"
        for drain in drains {
            let change = drain.delta.map { $0 == 0 ? "0" : RunComparison.signed($0, .drainMax) } ?? ""
            text +=
                "<tr\(drain.delta.map { $0 != 0 } ?? true ? " class=\"changed\"" : "")>"
                + cell(String(drain.fault), numeric: true) + cell(drain.source.rawValue) + cell(drain.action)
                + cell(RunComparison.drainTime(drain.baseline, drain.baselineDrained), numeric: true)
                + cell(RunComparison.drainTime(drain.candidate, drain.candidateDrained), numeric: true)
                + cell(change, numeric: true) + "</tr>\n"
        }
        return text + "</table>\n"
    }

    static func capitalised(_ text: String) -> String { text.prefix(1).uppercased() + text.dropFirst() }

    static let comparisonStyle = """
        .swatch{display:inline-block;width:14px;height:4px;margin:0 6px 3px 0;vertical-align:middle}
        .swatch.baseline{background:\(lines.baseline.color)}.swatch.candidate{background:\(lines.candidate.color)}
        tr.changed td{background:#fff8e6}.caution{color:#a35a00;font-weight:600}
        """

    /// Draws the charts from the embedded data; each canvas says `data-drawn` (its points) once drawn.
    static let comparisonScript = """
        const data = JSON.parse(document.getElementById("report-data").textContent);
        // Virtual time since each run's start, as precise as a tick needs: 0, +30s, +2.5m, +12m, +1.5h, +2d.
        const since = t => {
          const s = t / 1000, m = s / 60, h = m / 60;
          if (Math.abs(s) < 0.5) return "0";
          if (s < 120) return `+${Math.round(s)}s`;
          if (m < 10) return `+${+m.toFixed(1)}m`;
          if (m < 120) return `+${Math.round(m)}m`;
          if (h < 10) return `+${+h.toFixed(1)}h`;
          return h < 48 ? `+${Math.round(h)}h` : `+${+(h / 24).toFixed(1)}d`;
        };
        for (const chart of data.charts) {
          const canvas = document.getElementById(chart.id);
          const drawn = new TimeChart(canvas, {
            unit: chart.unit, integer: chart.integer, windowMs: null, timeLabel: since, series: data.series,
            joinMissing: true,
          });
          for (const point of chart.points) drawn.push(point.t, point.v);
          drawn.setBands(data.bands);
          drawn.draw();
          canvas.dataset.drawn = String(chart.points.length);
        }
        """
}
