/// How an HTTP request ended: an answer from the server, or a network failure.
public enum HTTPOutcome: Sendable, Hashable {
    /// The server answered.
    case response(status: Int, headers: [HTTPHeader], body: [UInt8])
    /// No answer: the kind of network failure.
    case failed(NetworkErrorKind)

    /// The value of the first header named `name` (case-insensitive), if the server answered.
    public func header(_ name: String) -> String? {
        guard case .response(_, let headers, _) = self else { return nil }
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }
}
