import BeekonDevice

/// The token endpoint that answers the SDK's `AuthConfig` refresh, and how it fails when told to.
public struct TokenScript: Sendable, Hashable {
    /// Where it listens; nil turns it off.
    public var path: String?
    /// The `expires_in` of issued tokens, seconds; issued access tokens stop working after it.
    public var expiresIn: Int
    /// Answer this status (with no token) instead of issuing one; nil to issue.
    public var failStatus: Int?
    /// With `failStatus`: only the first this many token requests fail; nil for all of them.
    public var failFirst: Int?
    /// Answer 200 without an `access_token` (the SDK's "dead credentials" case).
    public var omitToken: Bool
    /// Refresh tokens accepted as seeds; empty accepts any non-empty refresh token.
    /// Refresh tokens this endpoint issued are always accepted.
    public var refreshTokens: [String]

    /// On at `/oauth/token`, issuing one-hour tokens.
    public init(
        path: String? = "/oauth/token", expiresIn: Int = 3600, failStatus: Int? = nil,
        failFirst: Int? = nil, omitToken: Bool = false, refreshTokens: [String] = []
    ) {
        self.path = path
        self.expiresIn = expiresIn
        self.failStatus = failStatus
        self.failFirst = failFirst
        self.omitToken = omitToken
        self.refreshTokens = refreshTokens
    }

    func validate() throws(IngestReceiverError) {
        typealias Ranges = IngestReceiverConfiguration.Ranges
        var values: [(String, Int, NumberRange)] = [("token-expires-in", expiresIn, Ranges.expiresIn)]
        if let failStatus { values.append(("token-fail-status", failStatus, Ranges.status)) }
        if let failFirst { values.append(("token-fail-first", failFirst, Ranges.count)) }
        try IngestReceiverConfiguration.check(values)
    }
}
