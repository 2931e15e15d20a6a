import FleetDescription
import FleetEngine
import Foundation
import ServerTruth
import Testing

@testable import FleetReport

/// What `verify --json` prints and `run --verify` adds to the report: one body, its members the
/// categories' own names, and the HTML page's section.
@Suite("The server's truth in the report")
struct ServerTruthReportTests {
    static func verification() throws -> Verification {
        var total = TruthCounts()
        total.fixes[.acknowledgedStored] = 90
        total.fixes[.lost] = 3
        total.duplicates = 2
        total.duplicateRows = 4
        let result = TruthResult(
            devices: 4, devicesWithoutTold: 0, serverRows: 96, total: total, groups: [("walkers", total)],
            examples: [.lost: [TruthResult.Example(installID: "i-1", fixID: "f-1", batchID: "b-1", stored: 0)]])
        let thresholds = result.check([try Threshold.read("server.lost == 0")])
        return Verification(result: result, thresholds: thresholds, source: "standard input")
    }

    @Test("the body names each category as FixVerdict does, then the server's figures; a failed threshold fails it")
    func body() throws {
        let text = ServerTruthBody(try Self.verification()).fileText
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let fixes = try #require(object["fixes"] as? [String: Int])
        #expect(
            Set(fixes.keys)
                == Set(
                    FixVerdict.allCases.map(\.rawValue) + [
                        "duplicates", "duplicate_rows", "misattributed", "foreign", "unrecorded",
                    ]))
        #expect(fixes["lost"] == 3 && fixes["duplicate_rows"] == 4 && object["verdict"] as? String == "fail")
        let examples = try #require(object["examples"] as? [String: [[String: Any]]])
        #expect(Set(examples.keys) == Set(TruthResult.Problem.allCases.map(\.rawValue)))
        #expect(examples["lost"]?.first?["batch_id"] as? String == "b-1")
    }

    @Test("the HTML page has the section only with run --verify")
    func html() throws {
        let snapshot = FleetSnapshot()
        let without = RunHTML.page(RunReportBody(snapshot), snapshot: snapshot, chartsScript: "")
        let with = RunHTML.page(
            RunReportBody(snapshot, exitCode: 99, serverTruth: ServerTruthBody(try Self.verification())),
            snapshot: snapshot, chartsScript: "")
        #expect(!without.contains("The server's truth"))
        for text in [
            "<h2>The server's truth</h2>", "<code>server.lost == 0</code>", "Examples, lost:", "<code>f-1</code>",
            "(exit 99): see the server's truth below.",
        ] {
            #expect(with.contains(text), "\(text)")
        }
    }
}
