import HTTPMessage
import HTTPTypes

/// One upload POST: where, which headers, and the payload (encoded and gzipped by the runtime).
public struct UploadRequest: Sendable, Hashable, CustomStringConvertible {
    /// `POST` to the ingest URL (verbatim: `head.target`), with the SDK's headers: the content
    /// type and encoding, the static headers, then auth's `Authorization` (which replaces a
    /// static one).
    public var head: HTTPRequest
    /// The envelope.
    public var payload: UploadPayload

    /// A POST of `payload` to `url` with `headerFields`.
    public init(url: String, headerFields: HTTPFields, payload: UploadPayload) {
        head = HTTPRequest(method: .post, target: url, headerFields: headerFields)
        self.payload = payload
    }

    /// The SDK's upload timeout.
    public static let timeoutMillis: Int64 = 30_000

    /// The URL, the headers (secrets redacted) and the batch's size: never a token.
    public var description: String {
        "UploadRequest(url: \(head.target), headers: \(head.headerFields.redacted), batch_id: \(payload.batchID), "
            + "locations: \(payload.locations.count), geofence_events: \(payload.geofenceEvents.count))"
    }
}
