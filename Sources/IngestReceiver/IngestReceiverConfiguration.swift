import BeekonDevice
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
    /// The most bytes a body may inflate to; more is answered 413 (inflating stops there).
    public var maxInflatedBytes: Int
    /// The deepest JSON nesting accepted (the payload needs 3); deeper is answered 400.
    public var maxJSONDepth: Int
    /// The most JSON values one body may hold; more is answered 400 (parsing stops there).
    public var maxJSONElements: Int
    /// Request bytes held in memory at once across all connections: bodies being received plus
    /// bodies inflated and waiting to be stored. A request that would pass it is answered 503
    /// with `Retry-After`.
    public var memoryBudgetBytes: Int
    /// Seconds a connection may stay idle (a slow or stalled client) before it is closed.
    public var connectionTimeoutSeconds: Int
    /// Threads in the daemon's pool, each with its own epoll loop.
    public var threads: Int
    /// The most connections open at once.
    public var connectionLimit: Int
    /// The most connections open at once from one client address; 0 for no cap.
    public var perIPConnectionLimit: Int
    /// How uploads are answered: scripted failures, latency, hangs.
    public var script: AnswerScript
    /// Bearer-token checking on the ingest path.
    public var auth: AuthScript
    /// The token endpoint for the SDK's `AuthConfig` refresh.
    public var tokenEndpoint: TokenScript
    /// Keep the upload log (`IngestReceiver.uploadLog()`): every upload the script answers, in
    /// arrival order, retries included, the most recent 100 000 of them. Off by default; for
    /// embedders that check what a client sent, as the fleet's tests do.
    public var keepsUploadLog: Bool

    /// A configuration; every argument has the default the `receive` command uses.
    public init(
        host: String = "127.0.0.1", port: UInt16 = 8081, databasePath: String = "beekon-ingest.db",
        ingestPath: String = "/ingest", statsPath: String = "/stats", maxBodyBytes: Int = 4 << 20,
        maxInflatedBytes: Int = 4 << 20, maxJSONDepth: Int = 32, maxJSONElements: Int = 100_000,
        memoryBudgetBytes: Int = 64 << 20, connectionTimeoutSeconds: Int = 10,
        threads: Int = ProcessInfo.processInfo.activeProcessorCount, connectionLimit: Int = 16_384,
        perIPConnectionLimit: Int = 4096, script: AnswerScript = AnswerScript(), auth: AuthScript = AuthScript(),
        tokenEndpoint: TokenScript = TokenScript(), keepsUploadLog: Bool = false
    ) {
        self.host = host
        self.port = port
        self.databasePath = databasePath
        self.ingestPath = ingestPath
        self.statsPath = statsPath
        self.maxBodyBytes = maxBodyBytes
        self.maxInflatedBytes = maxInflatedBytes
        self.maxJSONDepth = maxJSONDepth
        self.maxJSONElements = maxJSONElements
        self.memoryBudgetBytes = memoryBudgetBytes
        self.connectionTimeoutSeconds = connectionTimeoutSeconds
        self.threads = threads
        self.connectionLimit = connectionLimit
        self.perIPConnectionLimit = perIPConnectionLimit
        self.script = script
        self.auth = auth
        self.tokenEndpoint = tokenEndpoint
        self.keepsUploadLog = keepsUploadLog
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
        let limits: [(String, Int, NumberRange)] = [
            ("max-body-bytes", maxBodyBytes, Ranges.maxBodyBytes),
            ("max-inflated-bytes", maxInflatedBytes, Ranges.maxInflatedBytes),
            ("max-json-depth", maxJSONDepth, Ranges.maxJSONDepth),
            ("max-json-elements", maxJSONElements, Ranges.maxJSONElements),
            ("memory-budget-bytes", memoryBudgetBytes, Ranges.memoryBudgetBytes),
            ("connection-timeout", connectionTimeoutSeconds, Ranges.connectionTimeoutSeconds),
            ("connection-limit", connectionLimit, Ranges.connectionLimit),
            ("per-ip-connection-limit", perIPConnectionLimit, Ranges.perIPConnectionLimit),
            ("threads", threads, Ranges.threads),
        ]
        try Self.check(limits)
        try script.validate()
        try tokenEndpoint.validate()
        return self
    }

    /// Checks each (flag, value, range), naming the first value out of its range:
    /// `--latency-ms "-1" is out of range; expected a whole number from 0 to 3600000 ms`.
    static func check(_ values: [(flag: String, value: Int, range: NumberRange)]) throws(IngestReceiverError) {
        for (flag, value, range) in values {
            do {
                _ = try range.check(Double(value), written: String(value))
            } catch {
                throw IngestReceiverError(.configuration, "--\(flag) \(error)")
            }
        }
    }
}
