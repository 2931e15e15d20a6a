public import HTTPTypes

/// One request as the daemon collected it, handed to the responder.
public struct IncomingRequest: Sendable {
    /// Its method, its path (without the query string, read into `query`) and its header fields
    /// in the order the client sent them (a field sent twice is there twice: `headerFields[name]`
    /// joins the values, so a repeated `Host` or `Content-Type` never passes a check for one).
    public var head: HTTPRequest
    /// Query arguments, decoded, by name (the last one wins when a name repeats).
    public var query: [String: String]
    /// The body (empty when it went over the limit).
    public var body: [UInt8]
    /// The body went over the daemon's limit; `body` is empty then.
    public var bodyTooLarge: Bool
    /// The body would have passed the daemon's memory budget (busy: answer 503 with
    /// `Retry-After`); `body` is empty then.
    public var bodyOverBudget: Bool
    /// The values of `Content-Length` headers that disagree (empty when they agree): the body's
    /// end is ambiguous, so the request must be refused (400) and the connection closed.
    public var conflictingContentLengths: [String]
    /// The client's TCP port (0 when unknown): requests with the same port came over one connection.
    public var clientPort: UInt16
    /// The client's address as text (`127.0.0.7`, `::1`; empty when unknown).
    public var clientAddress: String
    /// How long the body took to arrive, µs: from its first bytes to its last (0 when it came
    /// in one read).
    public var bodyMicros: Int64

    /// A request, as a test or the daemon builds it.
    public init(
        method: HTTPRequest.Method, path: String, query: [String: String] = [:], headerFields: HTTPFields = [:],
        body: [UInt8] = [], bodyTooLarge: Bool = false, bodyOverBudget: Bool = false,
        conflictingContentLengths: [String] = [], clientPort: UInt16 = 0, clientAddress: String = "",
        bodyMicros: Int64 = 0
    ) {
        head = HTTPRequest(method: method, scheme: nil, authority: nil, path: path, headerFields: headerFields)
        self.query = query
        self.body = body
        self.bodyTooLarge = bodyTooLarge
        self.bodyOverBudget = bodyOverBudget
        self.conflictingContentLengths = conflictingContentLengths
        self.clientPort = clientPort
        self.clientAddress = clientAddress
        self.bodyMicros = bodyMicros
    }

    /// `GET`, `POST`, …
    public var method: String { head.method.rawValue }
    /// The path, without the query string.
    public var path: String { head.path ?? "" }
}

/// A request whose connection ended before its body did (a client reset mid-body, or one that
/// went silent): what arrived of it.
public struct CutShortRequest: Sendable, Hashable {
    /// Its path.
    public var path: String
    /// The client's address as text.
    public var clientAddress: String
    /// Body bytes that arrived.
    public var receivedBytes: Int
    /// Its `Content-Length`; nil when it gave none (chunked).
    public var declaredBytes: Int?

    public init(path: String, clientAddress: String, receivedBytes: Int, declaredBytes: Int?) {
        self.path = path
        self.clientAddress = clientAddress
        self.receivedBytes = receivedBytes
        self.declaredBytes = declaredBytes
    }
}
