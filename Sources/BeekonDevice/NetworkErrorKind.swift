/// How an upload or refresh request failed without an HTTP answer.
public enum NetworkErrorKind: String, Sendable, Hashable, CaseIterable, Codable {
    /// The host name did not resolve.
    case dns
    /// The connection was refused.
    case refused
    /// No answer within the timeout.
    case timeout
    /// The TLS handshake or certificate check failed.
    case tls
    /// The connection was reset or closed mid-request.
    case reset
    /// The device's network went down while the request was out: the device hears no more of
    /// it, whatever the server did. Not counted as a failure: the network's return sends again
    /// at once, with the count reset (spec §6).
    case offline
}
