internal import CCurl
import Foundation

/// An HTTP/1.1 client for the whole fleet: one libcurl multi handle driven by one thread of its
/// own, with one connection per emulated device and a cap on transfers in flight.
///
/// Requests with different `connectionKey`s never share a connection; a key's requests reuse its
/// connection, and one that comes while it is busy gets a connection of its own, as a phone's
/// HTTP stack opens another: no request waits for another. A request can be cancelled by the id
/// it was submitted with (`cancel(id:)`): its connection is closed. Redirects are never followed.
/// Results arrive through completion closures called on the transport thread.
public final class HTTPTransport: Sendable {
    /// The most transfers in flight at once (0 = unlimited); the rest wait in FIFO order.
    public let maxConcurrentTransfers: Int
    /// The most idle devices whose connection is kept open; the least recently used go first.
    public let maxIdleConnections: Int
    /// `maxIdleConnections` when not told.
    public static let defaultMaxIdleConnections = 1024

    private let inbox: HTTPTransportInbox

    // curl_global_init is not thread-safe and must run once per process; a static let's lazy
    // initialisation runs exactly once, whichever thread gets there first.
    private static let globalInit: Result<Void, CurlError> = {
        do throws(CurlError) {
            try CurlError.check(curl_global_init(beekon_curl_global_default()))
            return .success(())
        } catch {
            return .failure(error)
        }
    }()

    /// Starts the transport thread.
    ///
    /// - Parameters:
    ///   - maxConcurrentTransfers: transfers in flight at once, 0 for no limit.
    ///   - maxIdleConnections: idle devices whose handle and connection are kept for reuse.
    ///   - connectTimeoutMillis: the limit on connecting (name lookup, TCP, TLS) per request.
    ///   - maxResponseBytes: a longer response body fails the request with `.other`.
    ///   - caFile: a PEM bundle to trust instead of the system's CAs.
    ///   - insecure: skip certificate and host name checks (for self-signed test servers).
    ///   - http2: offer HTTP/2 by ALPN on HTTPS, as phones do (plain HTTP stays HTTP/1.1).
    public init(
        maxConcurrentTransfers: Int = 256, maxIdleConnections: Int = HTTPTransport.defaultMaxIdleConnections,
        connectTimeoutMillis: Int = 10_000, maxResponseBytes: Int = 1 << 20,
        caFile: String? = nil, insecure: Bool = false, http2: Bool = false
    ) throws(CurlError) {
        try Self.globalInit.get()
        self.maxConcurrentTransfers = max(0, maxConcurrentTransfers)
        self.maxIdleConnections = max(0, maxIdleConnections)
        let inbox = HTTPTransportInbox(multi: try CurlMulti())
        self.inbox = inbox
        let loop = HTTPTransportLoopStarter(
            inbox: inbox,
            options: CurlEasy.Options(
                connectTimeoutMillis: connectTimeoutMillis, maxResponseBytes: maxResponseBytes,
                caFile: caFile, insecure: insecure, http2: http2),
            maxConcurrentTransfers: self.maxConcurrentTransfers,
            maxIdleHandles: self.maxIdleConnections)
        // A Thread of our own: curl_multi_poll blocks, which must never happen on Swift's
        // cooperative pool.
        let thread = Thread { loop.makeLoop().run() }
        thread.name = "beekon-http"
        thread.start()
    }

    /// Stops the thread without waiting; transfers still in flight complete as cancelled.
    deinit {
        inbox.stop()
    }

    /// Queues `request`; `completion` is called exactly once, on the transport thread, with the
    /// result. It should return quickly: every other transfer waits while it runs.
    ///
    /// After `shutdown()`, `completion` is called at once, on the caller's thread, with
    /// `.failed(.other, "cancelled")`.
    ///
    /// `id`, when given, names it for `cancel(id:)`; ids in flight at once must differ.
    public func submit(
        _ request: OutboundRequest, id: Int? = nil, completion: @escaping @Sendable (HTTPResult) -> Void
    ) {
        guard inbox.submit(HTTPPendingRequest(request: request, id: id, completion: completion)) else {
            completion(.failed(kind: .other, message: "cancelled", latencyMillis: 0))
            return
        }
    }

    /// Cancels the request submitted with `id`: one waiting never starts, one running is taken off
    /// the wire and its connection closed. Its completion is called with `.failed(.cancelled)`,
    /// unless it had already ended (then with its result, as usual). No effect on an unknown id.
    public func cancel(id: Int) {
        inbox.cancel(id)
    }

    /// Cancels every queued and running transfer (each completes with
    /// `.failed(.other, "cancelled")`), stops the thread, frees the libcurl handles and waits for
    /// all of that to finish. Safe to call more than once, and from a completion (which does not wait).
    public func shutdown() {
        inbox.stop()
        inbox.waitForExit()
    }
}

/// The loop's ingredients, all Sendable, carried onto the thread where the loop itself is made
/// so the loop (which is not Sendable) never crosses threads.
private struct HTTPTransportLoopStarter: Sendable {
    let inbox: HTTPTransportInbox
    let options: CurlEasy.Options
    let maxConcurrentTransfers: Int
    let maxIdleHandles: Int

    func makeLoop() -> HTTPTransportLoop {
        HTTPTransportLoop(
            inbox: inbox, options: options, maxConcurrentTransfers: maxConcurrentTransfers,
            maxIdleHandles: maxIdleHandles)
    }
}
