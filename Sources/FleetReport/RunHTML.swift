import BeekonDevice
import FleetEngine
import FleetRuntime
import Foundation
import ServerTruth

/// `run --html FILE`: the run as one self-contained page that opens offline (no CDN, no request):
/// the verdict and thresholds, the fix accounting and uploads per group, and charts over the
/// whole run of uploads by outcome, latency, the backlog and fix age, with the timeline's faults
/// as bands. The charts are the admin page's own (`web/charts.js`), inlined.
package enum RunHTML {
    /// A file the page needs that is not there, and where it was looked for.
    package struct Missing: Error, CustomStringConvertible {
        package var description: String
        init(_ description: String) { self.description = description }
    }

    /// web/charts.js's text from the page's folder (`--web`, else the shipped one), or nil with
    /// where it was looked for.
    package static func chartsScript(web: String? = nil) -> Result<String, Missing> {
        guard let folder = web ?? ShippedFiles.find("web") else {
            return .failure(
                Missing(
                    "the admin page's folder (web/, for its charts) was not found; looked in "
                        + ShippedFiles.searched("web").joined(separator: ", ")))
        }
        let path = URL(fileURLWithPath: folder).appendingPathComponent("charts.js").path
        guard let data = FileManager.default.contents(atPath: path) else {
            return .failure(Missing("\(path) cannot be read (the HTML report inlines its charts)"))
        }
        return .success(String(decoding: data, as: UTF8.self))
    }

    /// The page for `report` (the figures) and `snapshot` (its history and timeline);
    /// `chartsScript` is web/charts.js's text.
    package static func page(_ report: RunReportBody, snapshot: FleetSnapshot, chartsScript: String) -> String {
        let width = Double(snapshot.metrics.history.widthMillis) / 1000
        var uploads: [String] = []
        var latency: [String] = []
        var serverLatency: [String] = []
        var pending: [String] = []
        var age: [String] = []
        for sample in samples(snapshot) {
            let (t, row) = (sample.end, sample.row)
            let perSecond = row.outcomes.sorted { $0.key < $1.key }.map {
                "\(json($0.key.description)):\(number(Double($0.value) / width))"
            }
            uploads.append("{\"t\":\(t),\"v\":{\(perSecond.joined(separator: ","))}}")
            latency.append(
                "{\"t\":\(t),\"v\":{\"p50\":\(optional(row.latency.percentile(0.5))),"
                    + "\"p99\":\(optional(row.latency.percentile(0.99)))}}")
            serverLatency.append(
                "{\"t\":\(t),\"v\":{\"p50\":\(optional(row.serverLatency.percentile(0.5))),"
                    + "\"p99\":\(optional(row.serverLatency.percentile(0.99)))}}")
            pending.append("{\"t\":\(t),\"v\":{\"pending\":\(sample.pending)}}")
            age.append(
                "{\"t\":\(t),\"v\":{\"p50\":\(optional(ageSeconds(row, 0.5))),"
                    + "\"p99\":\(optional(ageSeconds(row, 0.99)))}}")
        }
        let bands = snapshot.metrics.timeline.map { band($0) }
        let data =
            "{\"uploads\":[\(uploads.joined(separator: ","))],\"latency\":[\(latency.joined(separator: ","))],"
            + "\"serverLatency\":[\(serverLatency.joined(separator: ","))],"
            + "\"pending\":[\(pending.joined(separator: ","))],\"age\":[\(age.joined(separator: ","))],"
            + "\"bands\":[\(bands.joined(separator: ","))]}"

        var body = ""
        let verdict: String
        switch report.exitCode {
        case 0?: verdict = "<p class=\"pass\">Passed: every threshold that counts was met (exit 0).</p>"
        case let code?:
            // A run whose own thresholds passed fails on the server's store: say where to look.
            let pointer = report.serverTruth?.verdict == "fail" ? ": see the server's truth below" : ""
            verdict = "<p class=\"fail\">Failed: a threshold was not met (exit \(code))\(pointer).</p>"
        case nil: verdict = "<p>The run is still going.</p>"
        }
        body += "<h1>\(html(report.name))</h1>\n"
        body +=
            "<p class=\"muted\">\(html(Timestamp.text(unixMillis: report.startedAt.unixMillis))) → "
            + "\(html(Timestamp.text(unixMillis: report.virtualTime.unixMillis))) virtual, \(report.realSeconds) s real"
            + (report.endedBy.map { "; ended: \($0.rawValue.replacingOccurrences(of: "_", with: " "))" } ?? "")
            + "; seed \(html(report.seed))" + (report.digest.map { "; digest <code>\(html($0))</code>" } ?? "")
            + "</p>\n" + verdict + "\n"
        body += "<h2>Thresholds</h2>\n" + thresholdsTable(report.thresholds)
        if !report.thresholdsCount {
            body += "<p class=\"muted\">None was given: these defaults are reported, not counted (see --strict).</p>\n"
        }
        body += "<h2>Where the fixes went</h2>\n" + fixesTable(report) + "\n"
        if let truth = report.serverTruth { body += "<h2>The server's truth</h2>\n" + truthSection(truth) + "\n" }
        body += "<h2>Uploads</h2>\n" + uploadsTable(report) + "\n"
        body += "<h2>Latency: as heard (virtual) and the server's (real)</h2>\n" + latencyTable(report) + "\n"
        body += "<h2>Fleet health</h2>\n" + fleetHealthTable(report.fleetHealth) + "\n"
        body += "<h2>Over the run</h2>\n"
        for (id, title) in [
            ("chart-uploads", "Uploads by outcome (per second)"),
            ("chart-latency", "Upload latency, as heard (virtual ms)"),
            ("chart-server-latency", "Server latency, the server's own time (real ms)"),
            ("chart-pending", "Backlog (fixes pending)"), ("chart-age", "Fix age at acknowledgement (s)"),
        ] {
            body += "<figure><figcaption>\(title)</figcaption><canvas id=\"\(id)\"></canvas></figure>\n"
        }
        body +=
            "<p class=\"muted\">Rows of \(number(width)) virtual s; faults shaded (the timeline's and the API's).</p>\n"

        return document(
            title: "Beekon Fleet report: \(report.name)", body: body, data: data,
            script: chartsScript + "\n" + drawScript)
    }

    /// A page that opens offline: the style (and `extraStyle`), `data` (JSON) as `#report-data`,
    /// and `script` (a module).
    static func document(title: String, body: String, data: String, script: String, extraStyle: String = "")
        -> String
    {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(html(title))</title>
        <style>\(style)\(extraStyle)</style>
        </head>
        <body>
        \(body)<script type="application/json" id="report-data">\(scriptSafe(data))</script>
        <script type="module">\(scriptSafe(script))</script>
        </body>
        </html>

        """
    }

    /// One charted history row: its end (virtual Unix ms), its figures, the backlog at its end.
    struct Sample {
        var end: Int64
        var row: RunHistory.Row
        var pending: Int
    }

    /// The history rows the run reached (a row past its end is empty, not zero).
    static func samples(_ snapshot: FleetSnapshot) -> [Sample] {
        let history = snapshot.metrics.history
        let backlog = history.backlog
        let reached = Int((snapshot.virtualNow - history.start) / max(1, history.widthMillis))
        return history.rows.prefix(max(0, reached + 1)).enumerated().map { index, row in
            Sample(end: history.start + Int64(index + 1) * history.widthMillis, row: row, pending: backlog[index])
        }
    }

    /// Fix age at acknowledgement in a row, virtual seconds.
    static func ageSeconds(_ row: RunHistory.Row, _ fraction: Double) -> Double? {
        row.ageAtAcknowledgement.percentile(fraction).map { $0 / 1000 }
    }

    /// A fault as a chart's band (JSON): its span less `offset` ms, labelled by its action,
    /// devices and source, after `prefix`; `fill` shades it in another colour than the default.
    static func band(_ fault: TimelineFault, offset: Int64 = 0, prefix: String = "", fill: String? = nil) -> String {
        let from = fault.source == .api ? ", API" : ""
        return "{\"from\":\(fault.startedAt - offset),\"to\":\(fault.endsAt.map { String($0 - offset) } ?? "null"),"
            + "\"label\":\(json("\(prefix)\(fault.action.rawValue) (\(fault.applied)\(from))"))"
            + (fill.map { ",\"fill\":\(json($0))" } ?? "") + "}"
    }

    private static func fixesTable(_ report: RunReportBody) -> String {
        var rows = [("Fleet", report.fixes, report.fixAgeMs)]
        if report.groups.entries.count > 1 {
            rows += report.groups.entries.map { ($0.key, $0.value.fixes, $0.value.fixAgeMs) }
        }
        var text =
            "<table><tr><th>Group</th><th>Carried over</th><th>Admitted</th><th>Acknowledged</th><th>Rejected</th>"
            + "<th>Pending</th><th>Expired</th><th>Deleted</th><th>Lost</th><th>Uninstalled</th><th>Unaccounted</th>"
            + "<th>Backlog peak</th>"
            + "<th>Age at ack p50</th><th>p99</th></tr>\n"
        for (name, fixes, age) in rows {
            let cells = [
                fixes.carriedOver, fixes.admitted, fixes.acknowledged, fixes.rejected, fixes.pending, fixes.expired,
                fixes.deleted, fixes.lost, fixes.uninstalled, fixes.unaccounted, fixes.maxPending,
            ].map { "<td class=\"num\">\($0)</td>" }.joined()
            text +=
                "<tr><td>\(html(name))</td>\(cells)<td class=\"num\">\(number(age.p50 / 1000)) s</td>"
                + "<td class=\"num\">\(number(age.p99 / 1000)) s</td></tr>\n"
        }
        return text + "</table>"
    }

    /// Thresholds checked, ✓/✗ with their values: the run's, and its server's truth's.
    private static func thresholdsTable(_ thresholds: [RunReportBody.ThresholdBody]) -> String {
        thresholdsTable(
            columns: ["Value"],
            thresholds.map { ($0.passed, $0.expression, cell($0.value.map { number($0) } ?? "no data", numeric: true)) }
        )
    }

    /// Thresholds, ✓/✗ with the expression, then `columns` more: each row's `cells` (HTML).
    static func thresholdsTable(columns: [String], _ rows: [(passed: Bool, expression: String, cells: String)])
        -> String
    {
        var text = "<table><tr><th></th><th>Threshold</th>" + columns.map { "<th>\(html($0))</th>" }.joined()
        text += "</tr>\n"
        for row in rows {
            text += "<tr>\(mark(row.passed))\(cell(row.expression, code: true))\(row.cells)</tr>\n"
        }
        return text + "</table>\n"
    }

    /// A table cell holding `text`, right-aligned if `numeric`, as code if `code`.
    static func cell(_ text: String, numeric: Bool = false, code: Bool = false) -> String {
        "<td\(numeric ? " class=\"num\"" : "")>" + (code ? "<code>\(html(text))</code>" : html(text)) + "</td>"
    }

    /// A table's ✓ or ✗ cell.
    static func mark(_ passed: Bool) -> String {
        passed ? "<td class=\"pass\">✓</td>" : "<td class=\"fail\">✗</td>"
    }

    /// `run --verify`: each category of fix, the server's own problems, the examples, the
    /// thresholds on the server's store.
    private static func truthSection(_ truth: ServerTruthBody) -> String {
        let counts = truth.fixes.counts
        var text =
            "<p>\(truth.devices) devices' fixes against \(truth.serverRows) rows (\(html(truth.source))): "
            + "<span class=\"\(truth.verdict)\">\(truth.verdict == "pass" ? "passed" : "failed")</span>.</p>\n"
            + "<table><tr><th></th><th>Fixes</th><th>Category</th></tr>\n"
        var rows = FixVerdict.allCases.map { ($0.isProblem, counts.fixes[$0, default: 0], $0.meaning) }
        rows += [
            (true, counts.duplicates, "fix ids stored more than once (\(counts.duplicateRows) extra rows)"),
            (true, counts.misattributed, "fix ids stored under another install id than their device's"),
            (true, counts.foreign, "rows no device of this run sent (foreign)"),
        ]
        for (problem, count, meaning) in rows {
            text +=
                "<tr>\(problem ? mark(count == 0) : "<td></td>")" + cell(String(count), numeric: true) + cell(meaning)
                + "</tr>\n"
        }
        text += "</table>\n" + thresholdsTable(truth.thresholds)
        for problem in TruthResult.Problem.allCases {
            let examples = truth.examples.examples[problem, default: []]
            guard !examples.isEmpty else { continue }
            text +=
                "<p>Examples, \(html(problem.rawValue)):</p>\n<table><tr><th>Install id</th><th>Fix id</th>"
                + "<th>Batch id</th><th>Told at (virtual)</th><th>Rows</th></tr>\n"
            for example in examples {
                let cells = [example.installID, example.fixID, example.batchID ?? "", example.toldAt ?? ""]
                    .map { cell($0, code: true) }.joined()
                text += "<tr>\(cells)<td class=\"num\">\(example.stored)</td></tr>\n"
            }
            text += "</table>\n"
        }
        return text
    }

    private static func uploadsTable(_ report: RunReportBody) -> String {
        var text =
            "<table><tr><th>Group</th><th>Outcome</th><th>Count</th><th>Share</th><th>Per s</th>"
            + "<th>p50 virtual ms</th><th>p90</th><th>p99</th><th>Max</th></tr>\n"
        var scopes = [("Fleet", report.uploads)]
        if report.groups.entries.count > 1 { scopes += report.groups.entries.map { ($0.key, $0.value.uploads) } }
        for (name, uploads) in scopes {
            for (outcome, figures) in uploads.byOutcome.entries {
                let latency = figures.latencyMs
                text +=
                    "<tr><td>\(html(name))</td><td>\(html(outcome))</td><td class=\"num\">\(figures.count)</td>"
                    + "<td class=\"num\">\(number(figures.rate * 100)) %</td>"
                    + "<td class=\"num\">\(number(figures.perSecond))</td>"
                    + [latency.p50, latency.p90, latency.p99, latency.max].map {
                        "<td class=\"num\">\(number($0))</td>"
                    }
                    .joined() + "</tr>\n"
            }
        }
        return text + "</table>"
    }

    /// Upload latency as the devices heard it beside the server's real time, per group.
    private static func latencyTable(_ report: RunReportBody) -> String {
        let heard =
            report.timing == .modelled
            ? "answers were modelled: 100 virtual ms plus injected latency, whatever the server's real time"
            : "answers took their real time × the warp"
        var text =
            "<p class=\"muted\">Heard: virtual ms from send to outcome (\(heard)). Server: real ms to answer each "
            + "upload, heard in time or not.</p>\n<table><tr><th>Group</th><th>Heard p50 virtual ms</th><th>p99</th>"
            + "<th>Max</th><th>Server p50 real ms</th><th>p90</th><th>p95</th><th>p99</th><th>Max</th></tr>\n"
        var scopes = [("Fleet", report.latencyMs, report.serverLatencyMs)]
        if report.groups.entries.count > 1 {
            scopes += report.groups.entries.map { ($0.key, $0.value.latencyMs, $0.value.serverLatencyMs) }
        }
        for (name, heard, server) in scopes {
            text +=
                "<tr><td>\(html(name))</td>"
                + [heard.p50, heard.p99, heard.max, server.p50, server.p90, server.p95, server.p99, server.max].map {
                    "<td class=\"num\">\(number($0))</td>"
                }
                .joined() + "</tr>\n"
        }
        return text + "</table>"
    }

    /// What the fleet itself did to its requests: its limits, its timing, its pace.
    private static func fleetHealthTable(_ health: FleetHealthBody) -> String {
        let rows: [(String, String)] =
            health.notSent.entries.map { ("Not sent: \($0.key) (uploads)", String($0.value)) } + [
                ("Held back by the connection cap (requests)", String(health.heldBack)),
                (
                    "Their wait p99 / max (real ms)",
                    "\(number(health.connectionWaitMs.p99)) / "
                        + number(health.connectionWaitMs.max)
                ),
                ("Cancelled on the wire (requests)", String(health.cancelledOnWire)),
                ("Warp timeouts (uploads)", String(health.warpTimeouts)),
                ("Clock waited for the server's answers (real s)", number(health.answerWaitSeconds)),
                ("Behind its warp (real s)", number(health.behindSeconds)),
            ]
        return "<p class=\"muted\">The fleet's own doing, not the server's.</p>\n<table>"
            + rows.map { "<tr><td>\(html($0.0))</td><td class=\"num\">\(html($0.1))</td></tr>" }.joined(separator: "\n")
            + "</table>"
    }

    static let style = """
        body{font:14px/1.45 system-ui,sans-serif;color:#1c2430;margin:24px auto;max-width:1100px;padding:0 16px}
        h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:22px 0 8px}
        table{border-collapse:collapse;margin:4px 0}
        th,td{border-bottom:1px solid #e3e7ec;padding:3px 8px;text-align:left}
        td.num{text-align:right;font-variant-numeric:tabular-nums}.muted{color:#5b6676}
        .pass{color:#2b8a3e;font-weight:600}.fail{color:#c92a2a;font-weight:600}
        figure{margin:10px 0}figcaption{font-weight:600;margin-bottom:2px}
        canvas{width:100%;height:220px;display:block;border:1px solid #e3e7ec;border-radius:4px}
        """

    /// Draws the four charts from the embedded data; each canvas says `data-drawn` once drawn.
    private static let drawScript = """
        const data = JSON.parse(document.getElementById("report-data").textContent);
        const hhmm = t => new Date(t).toISOString().slice(5, 16).replace("T", " ");
        for (const [id, series, unit, integer] of [
          ["chart-uploads", data.uploads, "uploads/s", false], ["chart-latency", data.latency, "ms", false],
          ["chart-server-latency", data.serverLatency, "ms", false],
          ["chart-pending", data.pending, "fixes", true], ["chart-age", data.age, "s", false],
        ]) {
          const canvas = document.getElementById(id);
          const chart = new TimeChart(canvas, { unit, integer, windowMs: null, timeLabel: hhmm });
          for (const point of series) chart.push(point.t, point.v);
          chart.setBands(data.bands);
          chart.draw();
          canvas.dataset.drawn = String(series.length);
        }
        """

    static func number(_ value: Double) -> String {
        let rounded = value.rounded(places: 2)
        return rounded == rounded.rounded() && abs(rounded) < 1e15 ? String(Int64(rounded)) : String(rounded)
    }

    static func optional(_ value: Double?) -> String { value.map(number) ?? "null" }

    /// A JSON string literal.
    static func json(_ text: String) -> String {
        var writer = JSONWriter()
        writer.string(text)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    static func html(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// Text inside a <script>: `</` never closes it early.
    static func scriptSafe(_ text: String) -> String {
        text.replacingOccurrences(of: "</", with: "<\\/")
    }
}
