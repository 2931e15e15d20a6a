import ArgumentParser
import FleetCommandLine
import FleetEngine
import FleetReport
import Foundation

/// The files a run (or `report merge`) writes at its end: the JSON report, CSV and one HTML page.
struct ReportOutputs: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Write the run's report here at its end (JSON; its schema: `beekon-fleet report-schema`); "
                + "`{shard}` in the path is the shard's index (`run --shard`).",
            valueName: "file"))
    var report: String?

    @Option(
        help: ArgumentHelp(
            "Write the run as one self-contained HTML page at its end (opens offline): the verdict, where the "
                + "fixes went, uploads, and charts over the run with the faults shaded.",
            valueName: "file"))
    var html: String?

    @Option(
        help: ArgumentHelp(
            "Write the run as CSV at its end, as Locust's --csv: PREFIX_stats.csv, PREFIX_fixes.csv, "
                + "PREFIX_stats_history.csv (a row per 10 virtual seconds), PREFIX_fleet_health.csv.",
            valueName: "prefix"))
    var csv: String?

    @Option(
        help: ArgumentHelp(
            "Write a Markdown summary here at the end (for a CI job's page or a pull request): the verdict, the "
                + "thresholds, the summary, a link to --html's page; with --baseline, the metrics that changed.",
            valueName: "file"))
    var markdown: String?

    @Option(
        help: ArgumentHelp(
            "Write the thresholds as JUnit XML here at the end (a test case each; with --baseline, its "
                + "thresholds too), which CI systems render.", valueName: "file"))
    var junit: String?

    /// The files with `{shard}` in their paths replaced by the shard's index (`run --shard`), so
    /// shards that share a folder write files of their own.
    func forShard(_ shard: Shard) -> ReportOutputs {
        var outputs = self
        let index = "\(shard.index)"
        outputs.report = report?.replacingOccurrences(of: "{shard}", with: index)
        outputs.html = html?.replacingOccurrences(of: "{shard}", with: index)
        outputs.csv = csv?.replacingOccurrences(of: "{shard}", with: index)
        outputs.markdown = markdown?.replacingOccurrences(of: "{shard}", with: index)
        outputs.junit = junit?.replacingOccurrences(of: "{shard}", with: index)
        return outputs
    }

    /// Refuses, before anything runs, a file that could not be written; answers the HTML page's
    /// charts script ("" without `--html`).
    func check() throws -> String {
        if let report { try Run.checkWritable(report, for: "--report") }
        if let markdown { try Run.checkWritable(markdown, for: "--markdown") }
        if let junit { try Run.checkWritable(junit, for: "--junit") }
        if let csv {
            for (suffix, _) in RunCSV.files(FleetSnapshot()) { try Run.checkWritable(csv + suffix, for: "--csv") }
        }
        return try Self.chartsScript(html: html)
    }

    /// `--html FILE` checked writable, and the charts script its page inlines ("" without it).
    static func chartsScript(html: String?) throws -> String {
        guard let html else { return "" }
        try Run.checkWritable(html, for: "--html")
        switch RunHTML.chartsScript() {
        case .success(let script): return script
        case .failure(let missing): throw CommandFailure("--html: \(missing)", exitCode: .usage)
        }
    }

    /// What the Markdown and JUnit files say: the thresholds checked (the run's, then the server
    /// store's), whether they count, the verdict, and the comparison with a baseline.
    struct Verdict {
        var title: String
        var results: [ThresholdResult]
        var counted: Bool
        var passed: Bool
        var comparison: RunComparison?
        /// Real seconds the command took.
        var seconds: Double
    }

    /// The files asked for and their contents: `report` as the JSON file holds it (with its merge
    /// state), `page` for the HTML page and the Markdown.
    private func files(
        report stored: RunReportBody, page: RunReportBody, snapshot: FleetSnapshot, chartsScript: String,
        verdict: Verdict
    ) -> [(path: String, text: String)] {
        var files: [(path: String, text: String)] = []
        if let report { files.append((report, stored.fileText)) }
        if let csv { files += RunCSV.files(snapshot).map { (csv + $0.suffix, $0.text) } }
        if let html { files.append((html, RunHTML.page(page, snapshot: snapshot, chartsScript: chartsScript))) }
        if let markdown {
            let text = RunMarkdown.text(
                title: verdict.title, report: page, results: verdict.results, counted: verdict.counted,
                passed: verdict.passed, html: html, comparison: verdict.comparison)
            files.append((markdown, text))
        }
        if let junit {
            let cases =
                verdict.results.map { JUnitReport.Case($0, counted: verdict.counted) }
                + (verdict.comparison?.junitCases ?? [])
            files.append((junit, JUnitReport(suite: verdict.title, cases: cases, seconds: verdict.seconds).text))
        }
        return files
    }

    /// Writes the files asked for (`files`), each replacing the old one whole, and says each
    /// written; answers the ones that could not be, with why.
    func write(
        report stored: RunReportBody, page: RunReportBody, snapshot: FleetSnapshot, chartsScript: String,
        verdict: Verdict
    ) -> [(path: String, error: any Error)] {
        var failed: [(path: String, error: any Error)] = []
        let files = files(
            report: stored, page: page, snapshot: snapshot, chartsScript: chartsScript, verdict: verdict)
        for (path, text) in files {
            do {
                try replaceFile(path, with: text)
                print("beekon-fleet: written: \(path)")
            } catch {
                failed.append((path, error))
            }
        }
        return failed
    }
}
