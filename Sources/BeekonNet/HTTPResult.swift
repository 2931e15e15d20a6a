import HTTPTypes

/// How one HTTP request ended: the server's answer, or a network failure.
///
/// Any status, 3xx and 5xx included, is a `.response`: redirects are never followed and the
/// sync engine decides what a status means.
public enum HTTPResult: Sendable {
    /// The server answered. `latencyMillis` is libcurl's total time for the transfer (from
    /// resolving the name to the last byte), not the time spent waiting in the transport's queue.
    case response(HTTPResponse, body: [UInt8], latencyMillis: Double)
    /// No answer: what kind of failure, libcurl's words for it, and how long it took to fail.
    case failed(kind: NetworkFailure, message: String, latencyMillis: Double)

    /// The status, if the server answered.
    public var status: Int? {
        guard case .response(let response, _, _) = self else { return nil }
        return response.status.code
    }

    /// The value of the first response header named `name` (case-insensitive), if any.
    public func header(_ name: String) -> String? {
        guard case .response(let response, _, _) = self, let name = HTTPField.Name(name) else { return nil }
        return response.headerFields[name]
    }
}

/// The kinds of network failure the SDK tells apart, from libcurl's result codes.
public enum NetworkFailure: String, Sendable, Hashable, CaseIterable, Codable {
    /// The host name did not resolve.
    case dns
    /// Nothing accepted the connection.
    case refused
    /// No socket could be made: the process (EMFILE) or the system (ENFILE) is out of file
    /// descriptors. The fault is the client's, not the server's: raise `ulimit -n`.
    case tooManyOpenFiles = "too-many-open-files"
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
