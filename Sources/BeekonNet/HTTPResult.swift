import HTTPTypes

/// How one HTTP request ended: the server's answer, or a network failure.
///
/// Any status, 3xx and 5xx included, is a `.response`: redirects are never followed and the
/// sync engine decides what a status means.
public enum HTTPResult: Sendable {
    /// The server answered. `latencyMillis` is libcurl's total time for the transfer (from
    /// resolving the name to the last byte), not the time spent waiting in the transport's queue,
    /// less the time a send-speed limit takes to send the body (`maxSendBytesPerSecond`).
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
