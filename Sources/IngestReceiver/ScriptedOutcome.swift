/// A scripted answer other than the normal one.
public enum ScriptedOutcome: Sendable, Hashable, CustomStringConvertible {
    /// Answer this status. A 2xx status stores the upload first; others do not (unless
    /// `storeBeforeFault`).
    case status(Int)
    /// Hold the connection without answering until the client gives up (or `hangMillis` pass).
    case hang
    /// Close the connection without answering.
    case close

    /// Parses `503`, `hang` or `close`.
    public init?(_ text: some StringProtocol) {
        switch text.lowercased() {
        case "hang": self = .hang
        case "close": self = .close
        default:
            guard let status = Int(text) else { return nil }
            self = .status(status)
        }
    }

    public var description: String {
        switch self {
        case .status(let status): "\(status)"
        case .hang: "hang"
        case .close: "close"
        }
    }
}
