import FleetDescription
import Foundation
import Testing

@testable import FleetEngine
@testable import FleetReport

/// `report compare --html`: the page carries both runs' series on one axis (ms since each run's
/// start), names the thresholds that failed, and escapes what the report files' names hold. The
/// browser draws it in checks/browser/test_html_report.py.
@Suite("The comparison's HTML page")
struct ComparisonHTMLTests {
    /// One case: the candidate's run against a baseline of 10 minutes heard at 100 ms, with its
    /// fault on 5 devices.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var baselineFile = "base.json"
        var candidateFile = "candidate.json"
        var latency = 100.0
        var minutes: Int64 = 10
        var applied = 5
        var thresholds: [String] = []
        /// Text the page holds, and text it must not.
        var expected: [String]
        var absent: [String] = []
        /// The runs' faults differ: each run's bands, labelled by its role.
        var bothFaults = false
        /// The rows differ in width (a run past `RunHistory.maxRows` rows): some instants carry one run.
        var oneSided = false

        var testDescription: String { name }
    }

    static let cases = [
        Case(
            name: "the same run twice passes; one set of faults",
            thresholds: ["upload.latency.p99 < +1%"],
            expected: [
                "<p class=\"pass\">Passed: every threshold was met (exit 0).</p>", "<code>base.json</code>",
                "<code>candidate.json</code>", "<span class=\"swatch baseline\"></span>baseline",
                "<span class=\"swatch candidate\"></span>candidate", "<p class=\"muted\">0 of ",
                "Both runs sent the same 0 requests",
            ],
            absent: ["Caution"]),
        Case(
            name: "a slower candidate fails its threshold; hostile file names are escaped",
            baselineFile: "runs/</script><script>alert(1)</script>.json", candidateFile: "a&\"b<img src=x>.json",
            latency: 300, thresholds: ["upload.latency.p99 < +10%", "fixes.lost == 0"],
            expected: [
                "<p class=\"fail\">Failed: 1 of 2 thresholds not met (exit 99).</p>",
                "<tr><td class=\"fail\">✗</td><td><code>upload.latency.p99 &lt; +10%</code></td>",
                "<tr><td class=\"pass\">✓</td><td><code>fixes.lost == 0</code></td>",
                "<code>runs/&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;.json</code>",
                "<code>a&amp;&quot;b&lt;img src=x&gt;.json</code>",
                "<tr class=\"changed\"><td><code>upload.latency.p99",
            ],
            absent: ["<script>alert(1)", "<img src=x>", "a&\"b"]),
        Case(
            name: "runs whose faults differ: each run's bands, by its role",
            applied: 7, expected: ["Compared: no threshold was given", "each run's faults shaded in its colour"],
            bothFaults: true),
        Case(
            name: "a day-long candidate's wider rows: the baseline alone at some instants, on one axis",
            minutes: 1450, expected: ["1d10m", "in rows of 10 and 20 virtual s"], oneSided: true),
    ]

    @Test("the page carries both runs' series, escapes file names, and names the failed threshold", arguments: cases)
    func page(_ example: Case) throws {
        let comparison = RunComparison(
            baseline: .init(file: example.baselineFile, record: try Self.record(latency: 100, minutes: 10, applied: 5)),
            candidate: .init(
                file: example.candidateFile,
                record: try Self.record(latency: example.latency, minutes: example.minutes, applied: example.applied)),
            thresholds: try example.thresholds.map { try Threshold.read($0) })
        let page = RunHTML.comparison(comparison, chartsScript: "/* charts */")
        for text in example.expected { #expect(page.contains(text), "\(text)") }
        for text in example.absent { #expect(!page.contains(text), "\(text)") }
        // Only the page's own two scripts.
        #expect(page.components(separatedBy: "<script").count == 3)

        let data = try Self.data(page)
        let charts = try #require(data["charts"] as? [[String: Any]])
        #expect(charts.compactMap { $0["id"] as? String } == RunHTML.Chart.allCases.map(\.id))
        var oneSided = 0
        for chart in charts {
            let points = try #require(chart["points"] as? [[String: Any]])
            let values = points.compactMap { $0["v"] as? [String: Any] }
            #expect(points.first?["t"] as? Int == 0, "the axis starts at each run's start")
            for role in ["baseline", "candidate"] {
                #expect(values.filter { $0[role] is Double }.count >= 59, "\(chart["id"] ?? "") \(role)")
            }
            oneSided += values.filter { $0.count == 1 }.count
            if chart["id"] as? String == "chart-latency-p99", example.latency > 100 {
                let last = try #require(values.last(where: { $0["candidate"] is Double && $0["baseline"] is Double }))
                #expect(try #require(last["candidate"] as? Double) > 2 * (try #require(last["baseline"] as? Double)))
            }
        }
        #expect((oneSided > 0) == example.oneSided)
        let bands = try #require(data["bands"] as? [[String: Any]])
        let labels = bands.compactMap { $0["label"] as? String }
        #expect(
            labels
                == (example.bothFaults
                    ? ["baseline: networkOffline (5)", "candidate: networkOffline (7)"] : ["networkOffline (5)"]))
        #expect(bands.first?["from"] as? Int == 120_000, "ms since the run's start")
    }

    /// The page's embedded data (`#report-data`).
    static func data(_ page: String) throws -> [String: Any] {
        let opening = try #require(page.range(of: "<script type=\"application/json\" id=\"report-data\">"))
        let closing = try #require(page.range(of: "</script>", range: opening.upperBound..<page.endIndex))
        let text = Data(page[opening.upperBound..<closing.lowerBound].utf8)
        return try #require(try JSONSerialization.jsonObject(with: text) as? [String: Any])
    }

    /// A run of `minutes` virtual minutes from 2026-01-01: an upload every 10 s heard after
    /// `latency` ms, a fix left pending each time, a fault from minute 2 to 3 on `applied` devices.
    static func record(latency: Double, minutes: Int64, applied: Int) throws -> RunRecord {
        let start: Int64 = 1_767_225_600_000
        var metrics = FleetMetrics()
        metrics.history = RunHistory(start: start)
        for step in 0..<(minutes * 6) {
            let at = start + step * 10_000 + 5_000
            metrics.uploads.record(.status(200), latencyMillis: latency, serverMillis: latency / 10, realNanos: 0)
            metrics.latency.record(latency)
            metrics.history.recordUpload(.status(200), latencyMillis: latency, serverMillis: latency / 10, at: at)
            metrics.history.recordLedgerChange(admitted: 1, acknowledged: 0, pending: 1, at: at)
            metrics.history.recordAge(latency * 10, at: at)
        }
        metrics.timeline = [
            TimelineFault(
                fault: 0, source: .timeline, action: .networkOffline, startedAt: start + 120_000,
                endsAt: start + 180_000, applied: applied)
        ]
        var snapshot = FleetSnapshot()
        snapshot.name = "compare"
        snapshot.startedAt = start
        snapshot.virtualNow = start + minutes * 60_000
        snapshot.deterministic = true
        snapshot.metrics = metrics
        return RunRecord(snapshot, shard: try Shard(index: 0, count: 1), end: nil, abortedBy: nil)
    }
}
