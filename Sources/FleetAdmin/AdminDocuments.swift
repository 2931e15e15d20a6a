import FleetDescription
import FleetReport
import Foundation

/// The admin API's descriptions as the server serves them, for the command line.
public enum AdminDocuments {
    /// The OpenAPI document (`GET /api/v1/openapi.yaml`); nil when `docs/openapi.yaml` is not
    /// found (`web`: the page's folder, as `--web` gives it).
    public static func openAPI(web: String? = nil) -> String? {
        WebFiles.locate(web: web).openAPI().map { String(decoding: $0.body, as: UTF8.self) }
    }

    /// `GET /api/v1/actions`: every action, its parameters and the selectors, as JSON.
    public static var actionCatalog: String { String(decoding: ActionCatalogBody.document, as: UTF8.self) }

    /// `{"action", "params"}` as a request sends `action`.
    public static func request(_ action: FleetAction) -> String {
        String(decoding: APIJSON.bytes(ActionRequestBody(action), capacity: 128), as: UTF8.self)
    }
}
