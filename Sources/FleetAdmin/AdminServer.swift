import FleetEngine
import Logging
import MicroHTTP

/// The admin server: REST API v1, live events (SSE), Prometheus metrics, the OpenAPI file and
/// the page from `web/`, on libmicrohttpd, as a thin layer over the fleet control API.
///
/// Reads come from the runtime's published snapshot; commands go through the runtime's inbox
/// and the connection is suspended until the loop answers, so no request holds a thread or
/// locks the loop. Sendable: it holds Sendable parts only.
public final class AdminServer: Sendable {
    /// The configuration it was started with.
    public let configuration: AdminConfiguration
    private let daemon: MicroHTTPDaemon
    private let publisher: EventPublisher

    /// The most bytes a request body may have.
    public static let maxBodyBytes = 64 * 1024
    /// The most connections open at once (a few pages, their event streams, scripts and a
    /// Prometheus scraper need far fewer); `run` counts them in its descriptor budget.
    public static let connectionLimit = 256

    /// Starts listening; refuses a non-loopback address without a token, and an allowed host
    /// that is not a bare host name. Every answer is logged to `logger` at debug level (a
    /// refusal with its reason; never a header, so never the token).
    public init(
        runtime: any FleetControl, configuration: AdminConfiguration,
        logger: Logger = Logger(label: "beekon-fleet admin")
    ) throws(AdminError) {
        let token = configuration.token.flatMap { $0.isEmpty ? nil : $0 }
        guard token != nil || AdminConfiguration.isLoopback(configuration.host) else {
            throw AdminError(
                message: "refusing to serve the admin API on \(configuration.host) without a token: "
                    + "give --admin-token TOKEN (or set BEEKON_ADMIN_TOKEN), or bind 127.0.0.1")
        }
        var allowed: [String] = []
        for text in configuration.allowedHosts {
            guard let name = RequestGuard.allowedName(text) else {
                throw AdminError(
                    message:
                        "allowed admin host \"\(text.prefix(100))\" is not a host name; "
                        + "expected a bare name or address "
                        + "such as fleet, fleet.example.org or 10.0.0.5 (no scheme, port or path)")
            }
            allowed.append(name)
        }
        self.configuration = configuration
        let publisher = EventPublisher(runtime: runtime)
        self.publisher = publisher
        let router = AdminRouter(
            runtime: runtime, token: token, files: WebFiles.locate(web: configuration.webDirectory),
            publisher: publisher,
            guard: RequestGuard(bindHost: configuration.host, allowed: allowed),
            commandTimeoutMillis: configuration.commandTimeoutMillis)
        do throws(MicroHTTPError) {
            // An idle connection is cut after 30 s; event streams are never idle (a `fleet`
            // event a second), so only slow or silent clients are.
            daemon = try MicroHTTPDaemon(
                host: configuration.host, port: configuration.port, threads: configuration.threads,
                connectionTimeoutSeconds: 30, connectionLimit: Self.connectionLimit, perIPConnectionLimit: 256,
                maxBodyBytes: Self.maxBodyBytes,
                respond: { request in
                    let disposition = router.respond(to: request)
                    // `GET /api/v1/fleet: 200`; `PATCH /api/v1/fleet: 400 {"error":…}`.
                    let summary = disposition.summary(body: Self.isRefusal(disposition))
                    logger.debug("\(request.method.prefix(20)) \(request.path.prefix(200)): \(summary)")
                    return disposition
                })
        } catch {
            publisher.stop()
            throw AdminError(message: "admin: \(error.message)", cannotListen: true)
        }
    }

    deinit {
        stop()
    }

    /// An answer whose body says why the request was refused (4xx, 5xx): the one body worth a log line.
    private static func isRefusal(_ disposition: Disposition) -> Bool {
        if case .reply(let reply, _) = disposition { return reply.status >= 400 }
        return false
    }

    /// The port it listens on (the one picked for port 0).
    public var port: UInt16 { daemon.port }

    /// `http://HOST:PORT/`, with 127.0.0.1 for a wildcard host.
    public var url: String {
        let host = configuration.host == "0.0.0.0" || configuration.host == "*" ? "127.0.0.1" : configuration.host
        return "http://\(host):\(port)/"
    }

    /// Ends the event streams and stops listening; idempotent.
    public func stop() {
        publisher.stop()
        daemon.stop()
    }
}
