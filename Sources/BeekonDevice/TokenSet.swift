/// The live token set a device owns after adopting its `AuthConfig` seed, rotated by refreshes
/// and persisted with the device. Its description never shows a token.
public struct TokenSet: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The token attached to uploads.
    public var accessToken: String?
    /// The credential sent to the token endpoint.
    public var refreshToken: String?
    /// When the access token expires, Unix milliseconds; nil when unknown.
    public var expiresAt: Int64?

    /// A token set from its parts.
    public init(accessToken: String?, refreshToken: String?, expiresAt: Int64?) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
    }

    public var description: String {
        "TokenSet(accessToken: \(accessToken == nil ? "nil" : "<redacted>"), "
            + "refreshToken: \(refreshToken == nil ? "nil" : "<redacted>"), "
            + "expiresAt: \(expiresAt.map { "\($0)" } ?? "nil"))"
    }
}
