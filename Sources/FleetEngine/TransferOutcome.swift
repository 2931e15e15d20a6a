import BeekonNet

/// What a device heard at the end of an upload or a token refresh, as the fleet counts it. Text
/// only at the edge (`description`: `200`, `timeout`, `offline`), where it labels counts.
public enum TransferOutcome: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The server answered with this status.
    case status(Int)
    /// No answer: the transport failed (`timeout`: the SDK's own timeout ran out first).
    case failed(NetworkFailure)
    /// The device's network went down while the transfer was out.
    case offline

    public var description: String {
        switch self {
        case .status(let status): String(status)
        case .failed(let failure): failure.rawValue
        case .offline: "offline"
        }
    }

    /// No answer reached the device (a network failure or offline), rather than a status.
    /// A 2xx answer: the upload was acknowledged.
    public var isSuccess: Bool {
        if case .status(let code) = self { return (200..<300).contains(code) }
        return false
    }

    public var isNetwork: Bool {
        if case .status = self { return false }
        return true
    }

    /// By their text, as every report lists them.
    public static func < (lhs: TransferOutcome, rhs: TransferOutcome) -> Bool { lhs.description < rhs.description }
}
