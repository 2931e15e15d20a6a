import BeekonStore
import FleetDescription
import FleetEngine
import Foundation

/// One verification, as `verify` and `run --verify` make it: the run folders' devices read,
/// the server's rows joined, the thresholds checked.
public struct Verification {
    public var result: TruthResult
    public var thresholds: [ThresholdResult]
    /// Where the server's rows came from.
    public var source: String

    public var passed: Bool { thresholds.allSatisfy(\.passed) }

    /// One from its parts (a report's example).
    public init(result: TruthResult, thresholds: [ThresholdResult], source: String) {
        self.result = result
        self.thresholds = thresholds
        self.source = source
    }

    /// Where the server's rows are.
    public enum Rows: Sendable {
        /// The receivers' databases of the run folders (the in-process receiver's).
        case runReceivers
        /// Reference receivers' databases.
        case databases([String])
        /// CSV or NDJSON rows from an open file, named in problems.
        case stream(FileHandle, name: String)
    }

    /// The thresholds `verify` checks when none is given.
    public static let defaultThresholds = ["server.lost == 0", "server.duplicates == 0"].map {
        // Literals this build reads: a failure here is a build's bug, found by the tests.
        (try? Threshold.read($0))!
    }

    /// Verifies the runs in `folders` against `rows`; `thresholds` empty takes the defaults.
    public init(folders: [RunFolder], rows: [Rows], thresholds: [Threshold], examples: Int) throws(VerifyProblem) {
        let groups = RunFolder.groups(folders)
        for threshold in thresholds {
            if let group = threshold.group, !groups.contains(group) {
                throw VerifyProblem(
                    "threshold `\(threshold.expression)`: the run has no group \"\(group)\" (it has "
                        + groups.map { "\"\($0)\"" }.joined(separator: ", ") + ")")
            }
        }
        var join = TruthJoin(groups: groups, examples: examples)
        for folder in folders {
            let installs =
                folder.devices.map { ($0.deviceID, $0.installID, false) }
                + folder.formerInstalls.map { ($0.deviceID, $0.installID, true) }
            for (deviceID, installID, former) in installs {
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
                    VerifiedDevice(
                        deviceID: deviceID, installID: installID, group: group, storePath: path, former: former),
                    records)
            }
        }
        join.seal()
        var sources: [String] = []
        for source in rows {
            switch source {
            case .runReceivers:
                let databases = folders.compactMap(\.receiverDatabase)
                guard !databases.isEmpty else {
                    throw VerifyProblem(
                        "no server rows: the run did not use the in-process receiver; give --stored FILE (or - for "
                            + "standard input) with install_id,fix_id rows from the server's database, or --db with "
                            + "a receiver's")
                }
                for database in databases { try ReceiverRows.read(path: database) { join.add($0) } }
                sources += databases
            case .databases(let databases):
                for database in databases {
                    guard FileManager.default.fileExists(atPath: database) else {
                        throw VerifyProblem("--db \(database): no such file")
                    }
                    try ReceiverRows.read(path: database) { join.add($0) }
                }
                sources += databases
            case .stream(let handle, let name):
                var reader = StoredRowReader(source: name)
                do {
                    try reader.read(handle) { join.add($0) }
                } catch let problem as StoredRowReader.Problem {
                    throw VerifyProblem("\(problem)")
                } catch {
                    throw VerifyProblem("\(name): \(error)")
                }
                sources.append(name)
            }
        }
        source = sources.joined(separator: ", ")
        if join.columnsLookSwapped {
            throw VerifyProblem(
                "\(source): most rows' fix_id is one of the run's install ids: give the columns as install_id,fix_id "
                    + "(or a header naming them)")
        }
        result = join.result { device in try? StoreRecords.read(path: device.storePath) }
        self.thresholds = result.check(thresholds.isEmpty ? Self.defaultThresholds : thresholds)
    }
}
