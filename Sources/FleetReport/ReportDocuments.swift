import BeekonDevice
import Foundation

/// The run report's description, for the command line.
package enum ReportDocuments {
    /// The JSON Schema of the run report (`RunReportBody`), as a standalone 2020-12 document.
    package static var schema: String {
        var json = JSONWriter()
        RunReportBody.objectSchema.write(to: &json, jsonSchema: true)
        // The schema's own members first: `$schema`, `$id`, `title`, then the generated ones.
        let body = String(decoding: json.bytes, as: UTF8.self)
        let compact =
            "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\","
            + "\"$id\":\"https://beekon.dev/fleet/report.schema.json\",\"title\":\"Beekon Fleet run report\","
            + body.dropFirst()
        // Indented, keys sorted: a file to read and to diff.
        guard let tree = try? JSONSerialization.jsonObject(with: Data(compact.utf8)),
            let pretty = try? JSONSerialization.data(
                withJSONObject: tree, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        else { return compact + "\n" }
        return String(decoding: pretty, as: UTF8.self) + "\n"
    }
}
