import HTTPTypes

/// How an HTTP request ended: an answer from the server, or a network failure.
public enum HTTPOutcome: Sendable, Hashable {
    /// The server answered.
    case response(HTTPResponse, body: [UInt8])
    /// No answer: the kind of network failure.
    case failed(NetworkErrorKind)

    /// The server's answer: its status code and the header fields named `headers`.
    public static func response(status: Int, headers: HTTPFields = [:], body: [UInt8]) -> HTTPOutcome {
        .response(HTTPResponse(status: .init(code: status), headerFields: headers), body: body)
    }

    /// The status code, if the server answered.
    public var status: Int? {
        guard case .response(let response, _) = self else { return nil }
        return response.status.code
    }

    /// The value of the first header named `name` (case-insensitive), if the server answered.
    public func header(_ name: HTTPField.Name) -> String? {
        guard case .response(let response, _) = self else { return nil }
        return response.headerFields[name]
    }
}
