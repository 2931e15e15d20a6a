import BeekonDevice
import FleetDescription
import Foundation

/// The admin API's descriptions as the server serves them, for the command line.
public enum AdminDocuments {
    /// The OpenAPI document (`GET /api/v1/openapi.yaml`); nil when `docs/openapi.yaml` is not
    /// found (`web`: the page's folder, as `--web` gives it).
    public static func openAPI(web: String? = nil) -> String? {
        WebFiles.locate(web: web).openAPI().map { String(decoding: $0.body, as: UTF8.self) }
    }

    /// `GET /api/v1/actions`: every action, its parameters and the selectors, as JSON.
    /// The JSON Schema of the run report (`RunReportBody`), as a standalone 2020-12 document.
    public static var reportSchema: String {
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

    public static var actionCatalog: String { String(decoding: ActionCatalogBody.document, as: UTF8.self) }

    /// `{"action", "params"}` as a request sends `action`.
    public static func request(_ action: FleetAction) -> String {
        String(decoding: APIJSON.bytes(ActionRequestBody(action), capacity: 128), as: UTF8.self)
    }
}
