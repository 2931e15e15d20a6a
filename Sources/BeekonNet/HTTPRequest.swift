/// One HTTP request from one emulated device.
public struct HTTPRequest: Sendable {
    /// The absolute URL, e.g. `https://ingest.example/v1/locations`.
    public var url: String
    /// The method; `POST` (an upload) by default. `GET` and `HEAD` send no body.
    public var method: String
    /// Request headers in order, sent as given (`Content-Encoding: gzip` included).
    public var headers: [(name: String, value: String)]
    /// The body bytes, sent unchanged (or gzipped first, with `gzipBody`).
    public var body: [UInt8]
    /// Gzip `body` on the transport's thread just before sending it (the caller adds
    /// `Content-Encoding: gzip`): deflate then runs beside the caller's thread, not on it.
    public var gzipBody: Bool
    /// The whole transfer's timeout; the SDK uses 30 s for uploads and 15 s for token refresh.
    public var timeoutMillis: Int
    /// The emulated device this request comes from. Requests with the same key may reuse one
    /// connection; requests with different keys never share one, because each device is its own
    /// phone. At most one request per key is in flight; later ones wait their turn.
    public var connectionKey: String

    /// A request; the defaults describe an upload.
    public init(
        url: String, method: String = "POST", headers: [(name: String, value: String)] = [],
        body: [UInt8] = [], gzipBody: Bool = false, timeoutMillis: Int = 30_000, connectionKey: String
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.gzipBody = gzipBody
        self.timeoutMillis = timeoutMillis
        self.connectionKey = connectionKey
    }
}
