import Foundation

/// What a token refresh came to, read the way the SDK reads it (seed 05).
public enum RefreshOutcome: Sendable, Hashable {
    /// 2xx with a token: adopt the new token set and retry the upload.
    case adopted(TokenSet)
    /// 2xx without a token, 3xx or another 4xx: stop refreshing until re-seeded.
    case deadCredentials
    /// 408, 429, 5xx, a timeout or a network error: back off and try again.
    case transient
    /// The device's network went down under it: no failed refresh (the endpoint never failed);
    /// it goes again when the network returns.
    case offline

    /// Reads a refresh answer. `previous` supplies the refresh token when the server does not
    /// rotate it; `now` (Unix ms) turns a relative expiry into an absolute one.
    public init(
        status: Int, body: [UInt8], mapping: ResponseMapping?, previous: TokenSet, now: Int64
    ) {
        switch status {
        case 200..<300:
            guard let tokens = Self.tokens(in: body, mapping: mapping, previous: previous, now: now)
            else {
                self = .deadCredentials
                return
            }
            self = .adopted(tokens)
        case 408, 429, 500..<600:
            self = .transient
        default:
            self = .deadCredentials
        }
    }

    /// The token set in a 2xx body, or nil when it carries no access token.
    ///
    /// Access token: `responseMapping.accessToken`, then `access_token`, `accessToken`, `token`.
    /// Expiry: the mapping's `expiresAt` / `expiresIn`, then `expiresAt`, `expiresIn`,
    /// `expires_at`, `expires_in`; absolute values are epoch seconds, relative ones count from
    /// now; a numeric string such as "3600" counts as a number.
    static func tokens(
        in body: [UInt8], mapping: ResponseMapping?, previous: TokenSet, now: Int64
    ) -> TokenSet? {
        guard let root = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
        else { return nil }
        let accessKeys = [mapping?.accessToken, "access_token", "accessToken", "token"]
        guard let accessToken = firstString(root, accessKeys), !accessToken.isEmpty else {
            return nil
        }
        let refreshKeys = [mapping?.refreshToken, "refresh_token", "refreshToken"]
        let refreshToken = firstString(root, refreshKeys) ?? previous.refreshToken
        let expiryKeys: [(path: String?, relative: Bool)] = [
            (mapping?.expiresAt, false), (mapping?.expiresIn, true), ("expiresAt", false),
            ("expiresIn", true), ("expires_at", false), ("expires_in", true),
        ]
        var expiresAt: Int64?
        for (path, relative) in expiryKeys {
            guard let path, let seconds = number(at: path, in: root) else { continue }
            let millis = Int64((seconds * 1000).rounded())
            expiresAt = relative ? now + millis : millis
            break
        }
        return TokenSet(accessToken: accessToken, refreshToken: refreshToken, expiresAt: expiresAt)
    }

    /// The value at a dot-path such as `data.access_token`.
    static func value(at path: String, in root: [String: Any]) -> Any? {
        var current: Any? = root
        for component in path.split(separator: ".", omittingEmptySubsequences: false) {
            guard let object = current as? [String: Any] else { return nil }
            current = object[String(component)]
        }
        return current
    }

    private static func firstString(_ root: [String: Any], _ paths: [String?]) -> String? {
        for case let path? in paths {
            if let text = value(at: path, in: root) as? String { return text }
        }
        return nil
    }

    /// A finite number at `path`, given as a JSON number or a numeric string.
    private static func number(at path: String, in root: [String: Any]) -> Double? {
        switch value(at: path, in: root) {
        case let text as String:
            return Double(text.trimmingSpaces).flatMap { $0.isFinite ? $0 : nil }
        case let number as NSNumber where String(cString: number.objCType) != "c":  // not true/false
            return number.doubleValue.isFinite ? number.doubleValue : nil
        default:
            return nil
        }
    }
}
