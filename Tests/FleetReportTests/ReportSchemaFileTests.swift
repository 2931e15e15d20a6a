import Foundation
import Testing

@testable import FleetReport

/// The run report's schema is generated (`ReportDocuments.schema`), and the copy in docs/ is it.
@Suite("The report's schema file")
struct ReportSchemaFileTests {
    @Test("docs/report.schema.json is the run report's schema as generated, a JSON Schema 2020-12 document")
    func reportSchemaFileIsGenerated() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("docs/report.schema.json"), encoding: .utf8)
        #expect(
            text == ReportDocuments.schema,
            "docs/report.schema.json is out of date: run `beekon-fleet report-schema --output docs/report.schema.json`"
        )
        let schema = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(schema["$schema"] as? String == "https://json-schema.org/draft/2020-12/schema")
        let properties = try #require(schema["properties"] as? [String: Any])
        for member in ["fixes", "uploads", "latency_ms", "thresholds", "exit_code", "groups"] {
            #expect(properties[member] != nil, "\(member)")
        }
        #expect(!text.contains("nullable"), "OpenAPI 3.0's nullable is not JSON Schema")
    }
}
