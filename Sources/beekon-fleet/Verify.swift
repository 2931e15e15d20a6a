import ArgumentParser
import BeekonDevice
import BeekonStore
import FleetCommandLine
import FleetDescription
import FleetEngine
import FleetReport
import Foundation
import ServerTruth

/// Checks what the server stored against what every device of a run was told.
struct Verify: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check the server's store against what every device of a run was told.",
        discussion: """
            Reads the run's device stores under --data (what each device was told of every batch it \
            sent, and what it still holds) and the rows the server stored: from --stored (CSV \
            `install_id,fix_id`, or NDJSON; `-` for standard input), from --db (a reference receiver's \
            database), or, with neither, from the run's in-process receiver. Reports every fix by \
            category: acknowledged and stored, lost (acknowledged but missing), duplicated, stored though \
            rejected, stored though the device never heard the 2xx, foreign, pending. Exits 0 when every \
            threshold is met (the defaults: server.lost == 0, server.duplicates == 0), 99 when one is not, \
            64 for input it cannot take. docs/verify.md has the formats and every category.
            """)

    @Option(help: "The run's data folder, as `run --data` (repeatable: shards' folders).")
    var data: [String] = []

    @Option(
        help: ArgumentHelp(
            "The server's rows: a file of `install_id,fix_id` lines (CSV, a header optional) or NDJSON, `-` for "
                + "standard input.", valueName: "file"))
    var stored: String?

    @Option(
        name: .customLong("db"), help: ArgumentHelp("A reference receiver's database (repeatable).", valueName: "file"))
    var databases: [String] = []

    @Option(
        name: .customLong("threshold"),
        help: ArgumentHelp(
            "A criterion on the server's store: `server.lost == 0`, `server.duplicates.rate < 0.001`, "
                + "`server.stored_though_rejected == 0`, `server.misattributed == 0`, `server.foreign == 0`, "
                + "one group's with `METRIC{group: NAME}` (repeatable; default server.lost == 0 and "
                + "server.duplicates == 0).", valueName: "expression"),
        transform: ThresholdFlag.read)
    var thresholds: [Threshold] = []

    @Option(help: "Examples shown of each problem, 0 to 1000.")
    var examples = 5

    @Flag(help: "Print the figures as JSON instead of the summary.")
    var json = false

    @Option(help: ArgumentHelp("Write the figures as JSON to this file too.", valueName: "file"))
    var report: String?

    func validate() throws {
        guard (0...1000).contains(examples) else {
            throw ValidationError("--examples \(examples): expected a whole number from 0 to 1000")
        }
        for threshold in thresholds where threshold.change != nil {
            throw ValidationError(
                "--threshold `\(threshold.expression)` is a change from a baseline run (a signed limit); verify holds "
                    + "the server's store to values: give a limit without + or -")
        }
        for threshold in thresholds where !threshold.metric.isServerTruth {
            throw ValidationError(
                "--threshold `\(threshold.expression)`: verify checks the server's store (server.lost, "
                    + "server.duplicates, server.stored_though_rejected, server.misattributed, server.foreign, "
                    + "each with .rate); the run's own figures are `run --threshold`'s")
        }
    }

    func run() throws {
        do throws(VerifyProblem) {
            try verify()
        } catch {
            FileHandle.standardError.write(Data("beekon-fleet verify: \(error)\n".utf8))
            throw ExitCode.usage
        }
    }

    private func verify() throws(VerifyProblem) {
        var folders: [RunFolder] = []
        for path in data.isEmpty ? [".beekon-fleet"] : data { folders += try RunFolder.find(path) }
        var rows: [Verification.Rows] = []
        if let stored {
            if stored == "-" {
                rows.append(.stream(.standardInput, name: "standard input"))
            } else {
                guard let file = FileHandle(forReadingAtPath: stored) else {
                    throw VerifyProblem(
                        "--stored \(stored): cannot be read (expected a file of install_id,fix_id rows)")
                }
                rows.append(.stream(file, name: stored))
            }
        }
        if !databases.isEmpty { rows.append(.databases(databases)) }
        if rows.isEmpty { rows = [.runReceivers] }
        let verification = try Verification(folders: folders, rows: rows, thresholds: thresholds, examples: examples)
        let body = ServerTruthBody(verification)
        if let report {
            guard FileManager.default.createFile(atPath: report, contents: Data(body.fileText.utf8)) else {
                throw VerifyProblem("--report \(report): cannot be written")
            }
        }
        if json {
            print(body.fileText, terminator: "")
        } else {
            for line in verification.result.lines(thresholds: verification.thresholds, source: verification.source) {
                print(line)
            }
        }
        if !verification.passed { Foundation.exit(RunExit.thresholdFailed) }
    }
}
