import FleetEngine

/// `--markdown FILE` of `run` and `report merge`: a summary for a CI job's page or a pull request.
/// The verdict, the thresholds as a table, the end-of-run summary (`RunSummary`, the lines the
/// terminal shows) and a link to the HTML page; with a baseline, the comparison after it.
package enum RunMarkdown {
    /// `results` are every threshold checked (the run's, then the server's store's), `counted`
    /// whether a failed one fails the run; `passed` is the run's verdict.
    package static func text(
        title: String, report: RunReportBody, results: [ThresholdResult], counted: Bool, passed: Bool,
        html: String?, comparison: RunComparison? = nil
    ) -> String {
        var text = "## \(title) \"\(RunComparison.cell(report.name))\": \(passed ? "passed" : "failed")\n\n"
        if let abortedBy = report.abortedBy {
            text += "Aborted: `\(RunComparison.cell(abortedBy))` failed and has abortOnFail.\n\n"
        }
        if !results.isEmpty {
            text += counted ? "" : "The default thresholds (none was given): reported, not counted.\n\n"
            text += "| | threshold | measured |\n|---|---|---|\n"
            for result in results {
                let mark = result.passed ? "✓ passed" : counted ? "✗ **failed**" : "✗ not met"
                text += "| \(mark) | `\(RunComparison.cell(result.threshold.expression))` | \(result.valueText) |\n"
            }
            text += "\n"
        }
        text += "```\n" + RunSummary.lines(report).joined(separator: "\n") + "\n```\n"
        if let digest = report.digest { text += "\nRequests' digest `\(digest)` (seed \(report.seed)).\n" }
        if let html { text += "\nThe run's page: [\(RunComparison.cell(html))](\(html))\n" }
        if let comparison {
            text += "\n" + comparison.markdown(title: "Against the baseline", html: nil)
        }
        return text
    }
}
