import ArgumentParser
import FleetCommandLine
import FleetEngine
import FleetReport

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

    /// The files with `{shard}` in their paths replaced by the shard's index (`run --shard`), so
    /// shards that share a folder write files of their own.
    func forShard(_ shard: Shard) -> ReportOutputs {
        var outputs = self
        let index = "\(shard.index)"
        outputs.report = report?.replacingOccurrences(of: "{shard}", with: index)
        outputs.html = html?.replacingOccurrences(of: "{shard}", with: index)
        outputs.csv = csv?.replacingOccurrences(of: "{shard}", with: index)
        return outputs
    }

    /// Refuses, before anything runs, a file that could not be written; answers the HTML page's
    /// charts script ("" without `--html`).
    func check() throws -> String {
        if let report { try Run.checkWritable(report, for: "--report") }
        if let csv {
            for (suffix, _) in RunCSV.files(FleetSnapshot()) { try Run.checkWritable(csv + suffix, for: "--csv") }
        }
        guard let html else { return "" }
        try Run.checkWritable(html, for: "--html")
        switch RunHTML.chartsScript() {
        case .success(let script): return script
        case .failure(let missing): throw CommandFailure("--html: \(missing)", exitCode: .usage)
        }
    }

    /// The files asked for and their contents: `report` as the JSON file holds it (with its merge
    /// state), `page` for the HTML page.
    private func files(
        report stored: RunReportBody, page: RunReportBody, snapshot: FleetSnapshot, chartsScript: String
    ) -> [(path: String, text: String)] {
        var files: [(path: String, text: String)] = []
        if let report { files.append((report, stored.fileText)) }
        if let csv { files += RunCSV.files(snapshot).map { (csv + $0.suffix, $0.text) } }
        if let html { files.append((html, RunHTML.page(page, snapshot: snapshot, chartsScript: chartsScript))) }
        return files
    }

    /// Writes the files asked for (`files`), each replacing the old one whole, and says each
    /// written; answers the ones that could not be, with why.
    func write(
        report stored: RunReportBody, page: RunReportBody, snapshot: FleetSnapshot, chartsScript: String
    ) -> [(path: String, error: any Error)] {
        var failed: [(path: String, error: any Error)] = []
        for (path, text) in files(report: stored, page: page, snapshot: snapshot, chartsScript: chartsScript) {
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
