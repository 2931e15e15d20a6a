/// How the admin server is set up.
public struct AdminConfiguration: Sendable {
    /// The IPv4 address to listen on (`127.0.0.1`; `0.0.0.0` needs a token).
    public var host: String
    /// The port; 0 picks a free one.
    public var port: UInt16
    /// The bearer token every `/api/…` and `/metrics` request must carry; nil or empty for none
    /// (allowed on loopback only).
    public var token: String?
    /// The page's folder; nil looks for `./web`, then the package's `web/`.
    public var webDirectory: String?
    /// Threads answering requests.
    public var threads: Int
    /// Host names the admin answers to besides loopback addresses, `localhost` and `host`
    /// (e.g. a container's service name); any other `Host` is refused with 421.
    public var allowedHosts: [String]
    /// How long a command waits for the loop before it is answered 409 (`AdminRouter`); tests of
    /// a real fleet on a machine loaded by other tests give it longer.
    package var commandTimeoutMillis = AdminRouter.commandTimeoutMillis

    /// A configuration; defaults listen on 127.0.0.1:8080 without a token.
    public init(
        host: String = "127.0.0.1", port: UInt16 = 8080, token: String? = nil, webDirectory: String? = nil,
        threads: Int = 2,
        allowedHosts: [String] = []
    ) {
        self.host = host
        self.port = port
        self.token = token
        self.webDirectory = webDirectory
        self.threads = threads
        self.allowedHosts = allowedHosts
    }

    /// Whether `host` is a loopback address (127.0.0.0/8, `localhost`).
    public static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host.hasPrefix("127.")
    }
}
