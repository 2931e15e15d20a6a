/// Bearer-token checking on the ingest path.
public struct AuthScript: Sendable, Hashable {
    /// Answer 401 unless `Authorization` carries a token in `tokens` or one the token endpoint
    /// issued and has not expired.
    public var requireToken: Bool
    /// Access tokens accepted as configured (never expire).
    public var tokens: [String]

    /// No checking by default.
    public init(requireToken: Bool = false, tokens: [String] = []) {
        self.requireToken = requireToken
        self.tokens = tokens
    }
}
