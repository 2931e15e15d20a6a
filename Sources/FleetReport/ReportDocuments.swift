import BeekonDevice
import Foundation

/// The run report's description, for the command line.
package enum ReportDocuments {
    /// The JSON Schema of the run report (`RunReportBody`), as a standalone 2020-12 document.
    package static var schema: String {
        schema(of: RunReportBody.self, file: "report.schema.json", title: "Beekon Fleet run report")
    }

    /// The JSON Schema of `report compare --json` (`ComparisonBody`).
    package static var comparisonSchema: String {
        schema(of: ComparisonBody.self, file: "compare.schema.json", title: "Beekon Fleet run comparison")
    }

    static func schema(of body: (some APIBody).Type, file: String, title: String) -> String {
        var json = JSONWriter()
        body.objectSchema.write(to: &json, jsonSchema: true)
        // The schema's own members first: `$schema`, `$id`, `title`, then the generated ones.
        let body = String(decoding: json.bytes, as: UTF8.self)
        let compact =
            "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\","
            + "\"$id\":\"https://beekon.dev/fleet/\(file)\",\"title\":\"\(title)\","
            + body.dropFirst()
        // Indented, keys sorted: a file to read and to diff.
        guard let tree = try? JSONSerialization.jsonObject(with: Data(compact.utf8)),
            let pretty = try? JSONSerialization.data(
                withJSONObject: tree, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        else { return compact + "\n" }
        return String(decoding: pretty, as: UTF8.self) + "\n"
    }
}
