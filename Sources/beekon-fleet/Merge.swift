import ArgumentParser
import FleetCommandLine
import FleetEngine
import FleetReport
import Foundation

/// Merges the reports of a fleet's shards into the report of the whole fleet, and judges it.
struct Merge: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Merge the reports of every shard of one run (`run --shard I/N --report FILE`) into one.",
        discussion: """
            Counts add up and the histograms merge, so percentiles are the whole fleet's, not an \
            average of the shards'. The thresholds the run was given are checked against the whole, \
            with the same verdict and exit codes as `run`: 0 when they pass, 99 when one that counts \
            fails (or a shard was aborted by one), 64 when the files are not every shard of one run.
            """)

    @Argument(help: "Every shard's report, in any order (`run --shard I/N --report FILE` writes one).")
    var files: [String]

    @OptionGroup var outputs: ReportOutputs

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("give every shard's report") }
    }

    /// The run record a report file carries (`merge_state`); 64 for a file that has none.
    static func record(_ file: String, expected: String) throws -> RunRecord {
        try record(file, text: try reportText(file, expected: expected))
    }

    /// The record in a report file's `text`; 64 for one that has none.
    static func record(_ file: String, text: Data) throws -> RunRecord {
        do throws(RunRecordProblem) {
            return try RunRecord.read(report: text, file: file)
        } catch {
            throw CommandFailure(error.description, exitCode: .usage)
        }
    }

    /// A report file's contents; 64 for a file that is missing, a folder, or unreadable.
    static func reportText(_ file: String, expected: String) throws -> Data {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file, isDirectory: &isFolder) else {
            throw CommandFailure("\(file): no such file", exitCode: .usage)
        }
        guard !isFolder.boolValue, let text = FileManager.default.contents(atPath: file) else {
            throw CommandFailure(
                "\(file): cannot be read (\(isFolder.boolValue ? "a folder" : "no permission")); expected \(expected)",
                exitCode: .usage)
        }
        return text
    }

    func run() throws {
        StandardOutput.flushEachLine()
        let chartsScript = try outputs.check()
        var records: [(name: String, record: RunRecord)] = []
        for file in files { records.append((file, try Self.record(file, expected: "a shard's report (run --report)"))) }
        let whole: RunRecord
        do throws(RunRecordProblem) {
            whole = try RunRecord.merged(records)
        } catch {
            throw CommandFailure(error.description, exitCode: .usage)
        }
        let snapshot = whole.snapshot
        let results = whole.thresholds.check(whole.metrics, groups: whole.groups)
        let passed = whole.abortedBy == nil && (!whole.thresholds.counted || results.allSatisfy(\.passed))
        let merged = RunReportBody(
            snapshot, end: whole.end, abortedBy: whole.abortedBy.map { .init(expression: $0) },
            exitCode: passed ? 0 : Int(RunExit.thresholdFailed), digest: whole.metrics.sent.text,
            receiver: whole.receiverDuplicates,
            devicesByGroup: whole.devicesByGroup)
        print("beekon-fleet: merged \(records.count) shard report\(records.count == 1 ? "" : "s") of \"\(whole.name)\"")
        for line in RunSummary.lines(merged) { print("beekon-fleet: " + line) }
        Run.verdict(whole.thresholds, results, metrics: whole.metrics)
        if let abortedBy = whole.abortedBy {
            print("beekon-fleet: a shard was aborted: `\(abortedBy)` failed and has abortOnFail (exit 99)")
        }
        print(
            "beekon-fleet: sent \(whole.metrics.sent.count) requests, digest \(whole.metrics.sent.text) "
                + "(the digest one process running the whole fleet prints)")
        var stored = merged
        if let report = outputs.report {
            do throws(RunRecordProblem) {
                stored.mergeState = try whole.mergeStateText()
            } catch {
                throw CommandFailure("--report \(report): \(error)")
            }
        }
        let verdict = ReportOutputs.Verdict(
            title: "beekon-fleet report merge", results: results, counted: whole.thresholds.counted, passed: passed,
            comparison: nil, seconds: whole.metrics.realSeconds)
        if let (path, error) = outputs.write(
            report: stored, page: merged, snapshot: snapshot, chartsScript: chartsScript, verdict: verdict
        ).first {
            throw CommandFailure("\(path): \(error)")
        }
        if !passed { throw ExitCode(RunExit.thresholdFailed) }
    }
}
