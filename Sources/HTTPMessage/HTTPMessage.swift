public import HTTPTypes

// Every HTTP message of the project is swift-http-types' `HTTPRequest` or `HTTPResponse` with
// its `HTTPFields`, and a body beside it: what a device sends and hears (BeekonDevice), what
// libcurl sends and receives (BeekonNet), what libmicrohttpd receives and answers (MicroHTTP),
// and so the receiver and the admin server. This is what each needs of them beyond the type.

extension HTTPRequest {
    /// A request to `target`, a URL exactly as written (`http://host:8080/ingest?k=v`): its scheme,
    /// authority and path with query become the request's, and `target` gives it back unchanged.
    public init(method: Method, target: String, headerFields: HTTPFields = [:]) {
        guard let separator = target.firstRange(of: "://") else {
            self.init(method: method, scheme: nil, authority: nil, path: target, headerFields: headerFields)
            return
        }
        let scheme = String(target[..<separator.lowerBound])
        let rest = target[separator.upperBound...]
        let pathStart = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        self.init(
            method: method, scheme: scheme, authority: String(rest[..<pathStart]), path: String(rest[pathStart...]),
            headerFields: headerFields)
    }

    /// The URL as written: scheme, authority, then path and query.
    public var target: String {
        var text = ""
        if let scheme { text += scheme + "://" }
        if let authority { text += authority }
        if let path { text += path }
        return text
    }
}

extension HTTPField {
    /// Whether the value may be a credential (authorization, cookies, keys, tokens).
    public var mayCarrySecret: Bool {
        let name = self.name.canonicalName
        return ["authorization", "cookie", "key", "token", "secret", "auth"].contains { name.contains($0) }
    }

    /// `Name: value`, a value that may carry a secret shown as `<redacted>`: for logs and
    /// descriptions, which never show a token.
    public var redacted: String {
        "\(name.rawName): \(mayCarrySecret ? "<redacted>" : value)"
    }
}

extension HTTPFields {
    /// Each field as `redacted` writes it, in order.
    public var redacted: [String] { map(\.redacted) }

    /// Fields from name and value text in order (a client's headers, a test's table), leaving
    /// out those whose name is no field name.
    public init(textPairs: [(String, String)]) {
        self.init(textPairs.compactMap { HTTPFields.field($0.0, $0.1) })
    }

    /// The fields as name and value text, in order, names as given.
    public var textPairs: [(name: String, value: String)] { map { ($0.name.rawName, $0.value) } }

    /// A field from text that may not be a field name (a fleet file's `sync.headers` key, a
    /// header a client sent): nil when `name` is not a token RFC 9110 allows.
    public static func field(_ name: String, _ value: String) -> HTTPField? {
        HTTPField.Name(name).map { HTTPField(name: $0, value: value) }
    }
}

extension HTTPField.Name {
    /// `Host`, as an HTTP/1.1 request carries it (swift-http-types keeps its own `.host` for
    /// HTTP/2's `:authority`; a server on HTTP/1.1 reads the field).
    public static let hostField = HTTPField.Name("Host")!
    /// `Sec-Fetch-Site`: where a browser says a request comes from.
    public static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!
    /// `X-Accel-Buffering`: `no` keeps a proxy such as nginx from holding a stream back.
    public static let accelBuffering = HTTPField.Name("X-Accel-Buffering")!
}
