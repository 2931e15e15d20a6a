import HTTPTypes

/// One HTTP request from one emulated device: the message (`head`, swift-http-types' request,
/// and `body`) and how the transport sends it.
public struct OutboundRequest: Sendable {
    /// Method, the absolute URL (`head.target`, e.g. `https://ingest.example/v1/locations`) and
    /// the header fields in order, sent as given (`Content-Encoding: gzip` included). `GET` and
    /// `HEAD` send no body.
    public var head: HTTPRequest
    /// The body bytes, sent unchanged (or gzipped first, with `gzipBody`).
    public var body: [UInt8]
    /// Gzip `body` on the transport's thread just before sending it (the caller adds
    /// `Content-Encoding: gzip`): deflate then runs beside the caller's thread, not on it.
    public var gzipBody: Bool
    /// The whole transfer's timeout; the SDK uses 30 s for uploads and 15 s for token refresh.
    public var timeoutMillis: Int
    /// The emulated device this request comes from. Requests with the same key may reuse one
    /// connection; requests with different keys never share one, because each device is its own
    /// phone. A request whose key's connection is busy goes on a connection of its own.
    public var connectionKey: String
    /// The local IPv4 address the connection leaves from (`127.0.0.7`); nil leaves it to the
    /// system. A key's connection is reused only by a request from the same address.
    public var sourceAddress: String?
    /// Open a new connection for it, closing the key's idle one (the device's connection was
    /// idle longer than a phone keeps one).
    public var freshConnection = false
    /// Send the body no faster than this many bytes a second, as a slow uplink does; nil sends it
    /// as fast as the connection takes it. The engine gives it on the virtual clock; the real
    /// driver scales it by the warp (none at max warp) before the transport sees it.
    public var maxSendBytesPerSecond: Int?
    /// Abort the request and close its connection after this many bytes of the body (as sent,
    /// gzipped), as a link that breaks mid-body does: the server receives a truncated request.
    /// Nil sends it whole.
    public var abortAfterBytes: Int?

    /// A request of `head` with `body`.
    public init(
        _ head: HTTPRequest, body: [UInt8] = [], gzipBody: Bool = false, timeoutMillis: Int = 30_000,
        connectionKey: String, sourceAddress: String? = nil
    ) {
        self.head = head
        self.body = body
        self.gzipBody = gzipBody
        self.timeoutMillis = timeoutMillis
        self.connectionKey = connectionKey
        self.sourceAddress = sourceAddress
    }

    /// A request to `url`; the defaults describe an upload.
    public init(
        url: String, method: HTTPRequest.Method = .post, headerFields: HTTPFields = [:], body: [UInt8] = [],
        gzipBody: Bool = false, timeoutMillis: Int = 30_000, connectionKey: String, sourceAddress: String? = nil
    ) {
        self.init(
            HTTPRequest(method: method, target: url, headerFields: headerFields), body: body, gzipBody: gzipBody,
            timeoutMillis: timeoutMillis, connectionKey: connectionKey, sourceAddress: sourceAddress)
    }
}
