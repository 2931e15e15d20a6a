/// What a device knows about its credentials beyond the tokens (spec §7).
public struct AuthHealth: Sendable, Hashable, Codable {
    /// The token endpoint declared the credentials dead: no refresh until a new seed.
    public var deadCredentials = false
    /// Refreshes that failed in a row (the breaker opens at three).
    public var failedRefreshes = 0
    /// While set and in the future, no refresh is attempted (Unix ms).
    public var breakerOpenUntil: Int64?
    /// The server answered 401/403 to the live access token: it is never sent again (a new
    /// token replaces it; for a seed-only recipe, `sync()` is the app's word to try it again).
    public var tokenRejected = false

    /// Healthy: live credentials, no failure, the breaker closed.
    public init(
        deadCredentials: Bool = false, failedRefreshes: Int = 0, breakerOpenUntil: Int64? = nil,
        tokenRejected: Bool = false
    ) {
        self.deadCredentials = deadCredentials
        self.failedRefreshes = failedRefreshes
        self.breakerOpenUntil = breakerOpenUntil
        self.tokenRejected = tokenRejected
    }

    private enum CodingKeys: String, CodingKey {
        case deadCredentials, failedRefreshes, breakerOpenUntil, tokenRejected
    }

    /// Reads stores written before `tokenRejected` was kept: their token counts as not rejected.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        deadCredentials = try container.decode(Bool.self, forKey: .deadCredentials)
        failedRefreshes = try container.decode(Int.self, forKey: .failedRefreshes)
        breakerOpenUntil = try container.decodeIfPresent(Int64.self, forKey: .breakerOpenUntil)
        tokenRejected = try container.decodeIfPresent(Bool.self, forKey: .tokenRejected) ?? false
    }
}
