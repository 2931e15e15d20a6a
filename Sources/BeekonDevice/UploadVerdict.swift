/// What the SDK makes of an upload's outcome (seed 05's status table).
public enum UploadVerdict: String, Sendable, Hashable, CaseIterable {
    /// 2xx: the server durably has the batch; delete it and keep draining.
    case accepted
    /// 400, 422: a permanently bad payload; drop the batch, never retry.
    case rejected
    /// 401, 403: keep the rows, refresh the token once and retry once.
    case auth
    /// 408, 429, 5xx, a timeout or a network error: keep the rows and back off.
    case transient
    /// 413, 404, 3xx, any other 4xx: keep the rows and back off; never shrink the batch.
    case permanent

    /// The verdict for an HTTP status code.
    public init(status: Int) {
        switch status {
        case 200..<300: self = .accepted
        case 400, 422: self = .rejected
        case 401, 403: self = .auth
        case 408, 429, 500..<600: self = .transient
        default: self = .permanent
        }
    }
}

extension String {
    /// The string without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { $0 != " " && $0 != "\t" }) else { return "" }
        let last = scalars.lastIndex(where: { $0 != " " && $0 != "\t" })!
        return String(scalars[first...last])
    }
}
