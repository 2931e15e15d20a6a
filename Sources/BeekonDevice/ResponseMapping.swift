/// Overrides of the keys read from a refresh response; each may be a dot-path such as
/// `data.access_token`.
public struct ResponseMapping: Sendable, Hashable, Codable {
    /// Where the new access token is.
    public var accessToken: String?
    /// Where a rotated refresh token is.
    public var refreshToken: String?
    /// Where an absolute expiry (epoch seconds) is.
    public var expiresAt: String?
    /// Where a relative expiry (seconds from now) is.
    public var expiresIn: String?

    /// A mapping; nil fields fall back to the standard keys.
    public init(
        accessToken: String? = nil, refreshToken: String? = nil, expiresAt: String? = nil,
        expiresIn: String? = nil
    ) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
        self.expiresIn = expiresIn
    }
}
