import Foundation

/// Everything an `IngestReceiver` needs to start: where it listens, where it stores, its limits,
/// its scripted answers and its auth.
public struct IngestReceiverConfiguration: Sendable, Hashable {
    /// The IPv4 address to listen on (`127.0.0.1`, `0.0.0.0`, or `localhost`).
    public var host: String
    /// The TCP port; 0 picks a free one (read it back from `IngestReceiver.port`).
    public var port: UInt16
    /// The SQLite database file; created when missing, appended to when present.
    public var databasePath: String
    /// The ingest path the SDK's `SyncConfig.url` points at.
    public var ingestPath: String
    /// The path of the JSON statistics (`GET`).
    public var statsPath: String
    /// The most bytes a request body may have as received (before gunzip); more is answered 413.
    public var maxBodyBytes: Int
    /// The most bytes a body may inflate to; more is answered 413.
    public var maxInflatedBytes: Int
    /// The deepest JSON nesting accepted (the payload needs 3); deeper is answered 400.
    public var maxJSONDepth: Int
    /// Seconds a connection may stay idle (a slow or stalled client) before it is closed.
    public var connectionTimeoutSeconds: Int
    /// Threads in the daemon's pool, each with its own epoll loop.
    public var threads: Int
    /// The most connections open at once.
    public var connectionLimit: Int
    /// How uploads are answered: scripted failures, latency, hangs.
    public var script: AnswerScript
    /// Bearer-token checking on the ingest path.
    public var auth: AuthScript
    /// The token endpoint for the SDK's `AuthConfig` refresh.
    public var tokenEndpoint: TokenScript

    /// A configuration; every argument has the default the `receive` command uses.
    public init(
        host: String = "127.0.0.1", port: UInt16 = 8081, databasePath: String = "beekon-ingest.db",
        ingestPath: String = "/ingest", statsPath: String = "/stats", maxBodyBytes: Int = 12 << 20,
        maxInflatedBytes: Int = 64 << 20, maxJSONDepth: Int = 32, connectionTimeoutSeconds: Int = 30,
        threads: Int = ProcessInfo.processInfo.activeProcessorCount, connectionLimit: Int = 8192,
        script: AnswerScript = AnswerScript(), auth: AuthScript = AuthScript(),
        tokenEndpoint: TokenScript = TokenScript()
    ) {
        self.host = host
        self.port = port
        self.databasePath = databasePath
        self.ingestPath = ingestPath
        self.statsPath = statsPath
        self.maxBodyBytes = maxBodyBytes
        self.maxInflatedBytes = maxInflatedBytes
        self.maxJSONDepth = maxJSONDepth
        self.connectionTimeoutSeconds = connectionTimeoutSeconds
        self.threads = threads
        self.connectionLimit = connectionLimit
        self.script = script
        self.auth = auth
        self.tokenEndpoint = tokenEndpoint
    }

    /// Splits `ADDR:PORT` (or `:PORT`, or `PORT`) into a host and a port.
    public static func parseListen(_ text: String) throws(IngestReceiverError) -> (host: String, port: UInt16) {
        let bad = IngestReceiverError(
            .configuration, "--listen \"\(text)\": expected ADDR:PORT, e.g. 127.0.0.1:8081 or 0.0.0.0:0")
        let hostPart: Substring
        let portPart: Substring
        if let colon = text.lastIndex(of: ":") {
            hostPart = text[..<colon]
            portPart = text[text.index(after: colon)...]
        } else {
            hostPart = ""
            portPart = text[...]
        }
        guard let port = UInt16(portPart) else { throw bad }
        return (hostPart.isEmpty ? "127.0.0.1" : String(hostPart), port)
    }

    /// This configuration when every value is in range; otherwise an error naming the first bad one.
    public func checked() throws(IngestReceiverError) -> IngestReceiverConfiguration {
        try validated()
    }

    /// Checks every value, naming the first bad one.
    func validated() throws(IngestReceiverError) -> IngestReceiverConfiguration {
        func fail(_ message: String) -> IngestReceiverError { IngestReceiverError(.configuration, message) }
        for (name, path) in [("ingest path", ingestPath), ("stats path", statsPath)] where !path.hasPrefix("/") {
            throw fail("the \(name) \"\(path)\" must start with /")
        }
        if let tokenPath = tokenEndpoint.path, !tokenPath.hasPrefix("/") {
            throw fail("the token path \"\(tokenPath)\" must start with /")
        }
        let paths = [ingestPath, statsPath] + (tokenEndpoint.path.map { [$0] } ?? [])
        guard Set(paths).count == paths.count else {
            throw fail("the ingest, stats and token paths must differ (got \(paths.joined(separator: ", ")))")
        }
        guard maxBodyBytes > 0, maxInflatedBytes > 0 else { throw fail("body limits must be positive") }
        guard maxJSONDepth >= 3 else { throw fail("the JSON depth limit must be at least 3 (the payload needs 3)") }
        guard connectionTimeoutSeconds > 0 else { throw fail("the connection timeout must be positive") }
        guard threads >= 1, connectionLimit >= 1 else { throw fail("threads and the connection limit must be at least 1") }
        try script.validate()
        try tokenEndpoint.validate()
        return self
    }
}
