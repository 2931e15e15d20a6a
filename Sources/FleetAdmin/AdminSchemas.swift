import FleetReport

/// The generated part of docs/openapi.yaml: the lines between its `BEGIN`/`END` marker lines under
/// `components.schemas`, the schemas of every response body and live event (from their
/// `Codable` types), of the request bodies (from their `Decodable` types) and of the action
/// requests (from `FleetAction.catalog`). The served document
/// always carries them as this binary has them; a test holds the committed file to the same text,
/// which `beekon-fleet openapi --output docs/openapi.yaml` rewrites.
enum AdminSchemas {
    static let begin =
        "    # BEGIN generated from the Codable bodies and FleetAction.catalog by `beekon-fleet openapi`: do not edit"
    static let end = "    # END generated"

    /// Every body written under `components.schemas`, in the document's order.
    static let bodies: [any APIBody.Type] = [
        HealthBody.self, ErrorBody.self, FixesBody.self, FleetSummaryBody.self, DeviceListBody.self,
        DeviceSummaryBody.self, DeviceDetailBody.self, StreamRecordBody.self, UploadRecordBody.self, UploadsBody.self,
        StoredLocationBody.self, LocationsBody.self, AppliedBody.self, SpawnedBody.self, PercentilesBody.self,
        StatsBody.self, ActionEventBody.self, DevicesEventBody.self, UploadsEventBody.self, ActionCatalogBody.self,
        GeofenceBody.self, RunReportBody.self, FaultsBody.self,
    ]

    /// Every request body derived from its type (the action requests are `ActionSchemas`').
    static let requests: [any APIRequest.Type] = [
        FleetPatchRequest.self, SpawnDevicesRequest.self, SelectorRequest.self,
    ]

    /// `template` (the OpenAPI document) with the lines between the markers replaced by the
    /// generated schemas; unchanged when it has no markers.
    static func splice(into template: String) -> String {
        var lines = template.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let first = lines.firstIndex(of: begin), let last = lines[first...].firstIndex(of: end) else {
            return template
        }
        lines.replaceSubrange((first + 1)..<last, with: generated)
        return lines.joined(separator: "\n")
    }

    /// The generated schema lines (4 spaces in, under `components.schemas`).
    static let generated: [String] =
        bodies.flatMap { body in body.objectSchema.yaml(named: body.component ?? "\(body)", indent: 4) }
        + requests.flatMap { request in request.requestSchema.yaml(named: request.component, indent: 4) }
        + ActionSchemas.generated
}
