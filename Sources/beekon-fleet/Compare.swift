import ArgumentParser
import FleetCommandLine
import FleetDescription
import FleetEngine
import FleetReport
import Foundation
import Synchronization

/// Two runs' reports side by side, judged by thresholds on the candidate or its change.
struct Compare: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compare two runs' reports (`run --report FILE`): every metric side by side, and the change.",
        discussion: """
            With --threshold, judges the candidate: a signed limit is a change from the baseline \
            (`server.latency.p99 < +10%`, `upload.errors.rate < +0.5pp`, `drain.max < +30s`), an \
            unsigned one the candidate's own value. Exits 0 when every threshold is met, 99 when one \
            is not, 64 for files or thresholds it cannot take.
            """)

    @Argument(help: "The baseline run's report.")
    var baseline: String

    @Argument(help: "The candidate run's report.")
    var candidate: String

    @Option(
        name: .customLong("threshold"),
        help: ArgumentHelp("A criterion on the candidate or its change (repeatable).", valueName: "expression"),
        transform: ThresholdFlag.read)
    var thresholds: [Threshold] = []

    @Flag(help: "List every metric, not only those that changed.")
    var all = false

    @Flag(help: "Print the comparison as JSON (its schema: `beekon-fleet report-schema --comparison`).")
    var json = false

    @OptionGroup var outputs: ComparisonOutputs

    func run() throws {
        StandardOutput.flushEachLine()
        let started = Date()
        let chartsScript = try outputs.check()
        let sides = try Self.sides([baseline, candidate])
        let (base, other) = (sides[0], sides[1])
        let problems = RunComparison.unjudgeable(
            thresholds, baseline: base, candidateGroups: other.record.groups, candidateVerified: other.truth != nil,
            candidate: "the candidate \(candidate)")
        if !problems.isEmpty {
            throw CommandFailure("cannot judge " + problems.joined(separator: "; "), exitCode: .usage)
        }
        let comparison = RunComparison(baseline: base, candidate: other, thresholds: thresholds)
        if json {
            print(ComparisonBody(comparison).text, terminator: "")
        } else {
            for line in comparison.lines(all: all) { print("compare: " + line) }
        }
        let failed = try outputs.write(
            comparison, title: "beekon-fleet report compare", seconds: Date().timeIntervalSince(started),
            chartsScript: chartsScript, say: !json)
        if !comparison.passed { throw ExitCode(RunExit.thresholdFailed) }
        if failed { throw ExitCode.failure }
    }

    /// Report files as compared, read side by side (decoding a record is most of the command's
    /// time); the first file's problem when several have one.
    static func sides(_ files: [String]) throws -> [RunComparison.Side] {
        let results = Mutex<[Result<RunComparison.Side, any Error>?]>(Array(repeating: nil, count: files.count))
        DispatchQueue.concurrentPerform(iterations: files.count) { index in
            let result = Result { try side(files[index]) }
            results.withLock { $0[index] = result }
        }
        return try results.withLock { $0 }.map { try $0!.get() }
    }

    /// A report file as compared: 64 for one that is missing, unreadable, or has no merge state.
    static func side(_ file: String) throws -> RunComparison.Side {
        let text = try Merge.reportText(file, expected: "a run's report (run --report)")
        return RunComparison.Side(
            file: file, record: try Merge.record(file, text: text), truth: RunComparison.Truth.read(report: text))
    }
}

/// The files a comparison writes (`report compare`, `run --baseline`): Markdown, JUnit, HTML.
struct ComparisonOutputs: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Write a Markdown summary here (for a CI job's page or a pull request): the verdict, the thresholds, "
                + "the metrics that changed.", valueName: "file"))
    var markdown: String?

    @Option(help: ArgumentHelp("Write the thresholds as JUnit XML here (a test case each).", valueName: "file"))
    var junit: String?

    @Option(
        help: ArgumentHelp(
            "Write both runs as one HTML page here: their charts on one time axis, and every metric side by side.",
            valueName: "file"))
    var html: String?

    /// Refuses, before anything is read, a file that could not be written; answers the HTML
    /// page's charts script ("" without `--html`).
    func check() throws -> String {
        if let markdown { try Run.checkWritable(markdown, for: "--markdown") }
        if let junit { try Run.checkWritable(junit, for: "--junit") }
        return try ReportOutputs.chartsScript(html: html)
    }

    /// Writes the files asked for, each replacing the old one whole; true when one could not be.
    func write(
        _ comparison: RunComparison, title: String, seconds: Double, chartsScript: String, say: Bool = true
    ) throws -> Bool {
        var files: [(String, String)] = []
        if let markdown { files.append((markdown, comparison.markdown(title: title, html: html))) }
        if let junit {
            let report = JUnitReport(suite: title, cases: comparison.junitCases, seconds: seconds)
            files.append((junit, report.text))
        }
        if let html { files.append((html, RunHTML.comparison(comparison, chartsScript: chartsScript))) }
        var failed = false
        for (path, text) in files {
            do {
                try replaceFile(path, with: text)
                if say { print("compare: written: \(path)") }
            } catch {
                FileHandle.standardError.write(Data("compare: \(path): \(error)\n".utf8))
                failed = true
            }
        }
        return failed
    }
}
