import ArgumentParser
import BeekonDevice
import BeekonStore
import FleetCommandLine
import FleetDescription
import FleetEngine
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
        transform: { text in
            do throws(ThresholdProblem) {
                return try Threshold.read(text)
            } catch {
                throw ValidationError("\(error)")
            }
        })
    var thresholds: [Threshold] = []

    @Option(help: "Examples shown of each problem, 0 to 1000.")
    var examples = 5

    @Flag(help: "Print the figures as JSON instead of the summary.")
    var json = false

    @Option(help: ArgumentHelp("Write the figures as JSON to this file too.", valueName: "file"))
    var report: String?

    static let defaultThresholds = ["server.lost == 0", "server.duplicates == 0"]

    func validate() throws {
        guard (0...1000).contains(examples) else {
            throw ValidationError("--examples \(examples): expected a whole number from 0 to 1000")
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
        let groups = Self.groups(folders)
        for threshold in thresholds {
            if let group = threshold.group, !groups.contains(group) {
                throw VerifyProblem(
                    "--threshold `\(threshold.expression)`: the run has no group \"\(group)\" (it has "
                        + groups.map { "\"\($0)\"" }.joined(separator: ", ") + ")")
            }
        }
        var join = TruthJoin(groups: groups, examples: examples)
        for folder in folders {
            for (deviceID, installID) in folder.devices {
                let path = folder.storePath(installID)
                // A device that never stored anything has no file: nothing to check.
                guard FileManager.default.fileExists(atPath: path) else { continue }
                let records: StoreRecords
                do throws(StoreError) {
                    records = try StoreRecords.read(path: path)
                } catch {
                    throw VerifyProblem("device \(deviceID): \(error)")
                }
                let group = groups.firstIndex(of: RunFolder.group(of: deviceID, in: groups)) ?? 0
                join.add(
                    VerifiedDevice(deviceID: deviceID, installID: installID, group: group, storePath: path), records)
            }
        }
        join.seal()
        let source = try readRows(into: &join, folders: folders)
        if join.columnsLookSwapped {
            throw VerifyProblem(
                "\(source): most rows' fix_id is one of the run's install ids: give the columns as install_id,fix_id "
                    + "(or a header naming them)")
        }
        let result = join.result { device in try? StoreRecords.read(path: device.storePath) }
        let given = thresholds.isEmpty ? Self.defaultThresholds.compactMap { try? Threshold.read($0) } : thresholds
        let checked = result.check(given)
        let body = TruthBody(result, thresholds: checked, source: source)
        if let report {
            guard FileManager.default.createFile(atPath: report, contents: body.json()) else {
                throw VerifyProblem("--report \(report): cannot be written")
            }
        }
        if json {
            FileHandle.standardOutput.write(body.json() + Data("\n".utf8))
        } else {
            for line in result.lines(thresholds: checked, source: source) { print(line) }
        }
        if !checked.allSatisfy(\.passed) { Foundation.exit(RunExit.thresholdFailed) }
    }

    /// Feeds the server's rows to `join`; returns where they came from.
    private func readRows(into join: inout TruthJoin, folders: [RunFolder]) throws(VerifyProblem) -> String {
        var sources: [String] = []
        if let stored {
            let handle: FileHandle
            let name: String
            if stored == "-" {
                handle = .standardInput
                name = "standard input"
            } else {
                guard let file = FileHandle(forReadingAtPath: stored) else {
                    throw VerifyProblem(
                        "--stored \(stored): cannot be read (expected a file of install_id,fix_id rows)")
                }
                handle = file
                name = stored
            }
            var reader = StoredRowReader(source: name)
            do {
                try reader.read(handle) { join.add($0) }
            } catch let problem as StoredRowReader.Problem {
                throw VerifyProblem("--stored \(problem)")
            } catch {
                throw VerifyProblem("--stored \(name): \(error)")
            }
            sources.append(name)
        }
        var databases = self.databases
        if stored == nil, databases.isEmpty {
            databases = folders.compactMap(\.receiverDatabase)
            guard !databases.isEmpty else {
                throw VerifyProblem(
                    "no server rows: the run did not use the in-process receiver; give --stored FILE (or - for "
                        + "standard input) with install_id,fix_id rows from the server's database, or --db with a "
                        + "receiver's")
            }
        }
        for database in databases {
            guard FileManager.default.fileExists(atPath: database) else {
                throw VerifyProblem("--db \(database): no such file")
            }
            try ReceiverRows.read(path: database) { join.add($0) }
            sources.append(database)
        }
        return sources.joined(separator: ", ")
    }

    /// The run's groups in the fleet's order, from every folder's record, or from the device ids.
    static func groups(_ folders: [RunFolder]) -> [String] {
        var groups: [String] = []
        for folder in folders {
            for group in folder.groups where !groups.contains(group) { groups.append(group) }
        }
        for folder in folders {
            for (deviceID, _) in folder.devices {
                let group = RunFolder.group(of: deviceID, in: groups)
                if !groups.contains(group) { groups.append(group) }
            }
        }
        return groups
    }
}
