import FleetEngine
import ServerTruth

/// What `verify` found (`verify --json`, `--report`) and `run --verify` adds to the run's report
/// (`server_truth`): every fix by category, the server's own problems, each group's figures,
/// examples and the thresholds on the server's store.
package struct ServerTruthBody: APIBody {
    package static let keyStyle = APIKeyStyle.snakeCase

    /// A category's fixes, then the server's figures, each a member.
    struct Counts: APIBody {
        var counts: TruthCounts

        enum Extra: String, CaseIterable {
            case duplicates, duplicateRows, misattributed, foreign, unrecorded
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: FixCounts.MemberKey.self)
            for verdict in FixVerdict.allCases {
                try container.encode(counts.fixes[verdict, default: 0], forKey: FixCounts.MemberKey(verdict.rawValue))
            }
            let extras: [(Extra, Int)] = [
                (.duplicates, counts.duplicates), (.duplicateRows, counts.duplicateRows),
                (.misattributed, counts.misattributed), (.foreign, counts.foreign), (.unrecorded, counts.unrecorded),
            ]
            for (extra, value) in extras { try container.encode(value, forKey: FixCounts.MemberKey(extra.rawValue)) }
        }

        static let example = Counts(counts: TruthCounts())
        static let notes: [String: APINote] = Dictionary(
            uniqueKeysWithValues: FixVerdict.allCases.map { ($0.rawValue, APINote("Fixes " + $0.meaning + ".")) }
        ).merging([
            "duplicates": APINote("Fix ids the server holds more than once (`server.duplicates`)."),
            "duplicate_rows": APINote("The rows past the first of each duplicated fix id."),
            "misattributed": APINote("Fix ids the server holds under another install id than their device's."),
            "foreign": APINote("Rows whose fix id no device of the run sent (the run's figure only; 0 in a group)."),
            "unrecorded": APINote("Rows of devices whose stores predate told records: not judged."),
        ]) { own, _ in own }
    }

    struct Example: APIBody {
        var installId: String
        var fixId: String
        var batchId: String?
        var toldAt: String?
        var stored: Int
        var line: Int?

        init(_ example: TruthResult.Example) {
            installId = example.installID
            fixId = example.fixID
            batchId = example.batchID
            toldAt = example.toldAt
            stored = example.stored
            line = example.line
        }

        static let example = Example(TruthResult.Example(installID: "", fixID: "", stored: 0))
        static let notes = [
            "install_id": APINote("As the server holds it (its device's, for all but `misattributed`); empty: none."),
            "batch_id": APINote("The batch that told its device (null for a foreign row)."),
            "told_at": APINote("When its device was told, on the fleet's virtual clock (RFC 3339)."),
            "stored": APINote("The rows of it the server holds."),
            "line": APINote("A foreign row's line in the rows given; null otherwise."),
        ]
    }

    /// The examples of each problem, by its name.
    struct Examples: APIBody {
        var examples: [TruthResult.Problem: [TruthResult.Example]]

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: FixCounts.MemberKey.self)
            for problem in TruthResult.Problem.allCases {
                try container.encode(
                    examples[problem, default: []].map(Example.init), forKey: FixCounts.MemberKey(problem.rawValue))
            }
        }

        static let example = Examples(examples: [:])
        static let summary: String? = "The first few of each problem (`verify --examples`), in fix id order."
    }

    var verdict: String
    var devices: Int
    var devicesWithoutTold: Int
    var serverRows: Int
    var source: String
    var fixes: Counts
    var groups: APIMap<Counts>
    var examples: Examples
    var thresholds: [RunReportBody.ThresholdBody]

    package init(_ verification: Verification) {
        let result = verification.result
        verdict = verification.passed ? "pass" : "fail"
        devices = result.devices
        devicesWithoutTold = result.devicesWithoutTold
        serverRows = result.serverRows
        source = verification.source
        fixes = Counts(counts: result.total)
        groups = APIMap(result.groups.map { ($0.name, Counts(counts: $0.counts)) })
        examples = Examples(examples: result.examples)
        thresholds = verification.thresholds.map { result in
            RunReportBody.ThresholdBody(
                expression: result.threshold.expression, group: result.threshold.group, passed: result.passed,
                value: result.value)
        }
    }

    /// The body as a file holds it: one line and a newline.
    package var fileText: String { String(decoding: APIJSON.bytes(self), as: UTF8.self) + "\n" }

    static let emptyResult = TruthResult(
        devices: 0, devicesWithoutTold: 0, serverRows: 0, total: TruthCounts(), groups: [], examples: [:])
    package static let example = ServerTruthBody(
        Verification(result: emptyResult, thresholds: [], source: ""))
    package static let component: String? = "ServerTruth"
    package static let summary: String? =
        "The server's store against what every device was told (`beekon-fleet verify`, `run --verify`)."
    package static let notes = [
        "verdict": APINote("`pass` when every threshold on the server's store is met.", oneOf: ["pass", "fail"]),
        "devices_without_told": APINote("Devices whose stores predate told records (their rows `unrecorded`)."),
        "server_rows": APINote("The rows the server's side gave, one per stored fix."),
        "source": APINote("Where the server's rows came from (files, `standard input`, databases, a command)."),
        "groups": APINote("Each group's figures (`foreign` is the run's only)."),
    ]
}
