/// The kinds of network failure the SDK tells apart, from libcurl's result codes.
public enum NetworkFailure: String, Sendable, Hashable, CaseIterable, Codable {
    /// The host name did not resolve.
    case dns
    /// Nothing accepted the connection.
    case refused
    /// No socket could be made: the process (EMFILE) or the system (ENFILE) is out of file
    /// descriptors. The fault is the client's, not the server's: raise `ulimit -n`.
    case tooManyOpenFiles = "too-many-open-files"
    /// The connection could not leave from its source address (`OutboundRequest.sourceAddress`):
    /// the address is not this machine's, or no route from it reaches the server (a loopback
    /// address to another host). The fault is the client's setup, not the server's.
    case sourceAddress = "source-address"
    /// The request did not finish within its timeout (or the connect timeout).
    case timeout
    /// The TLS handshake or the certificate check failed.
    case tls
    /// The connection broke mid-request: reset, nothing received, or a short body.
    case reset
    /// Anything else, including cancellation by `HTTPTransport.shutdown()`.
    case other
    /// Cancelled by `HTTPTransport.cancel(id:)`: the caller gave up on it (closed on the wire, or
    /// never started).
    case cancelled
}
