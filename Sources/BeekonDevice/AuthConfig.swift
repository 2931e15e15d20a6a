/// The declarative token-refresh recipe of seed 05 (`AuthConfig`). Its tokens are a seed: the
/// device adopts them once, then owns and rotates its own `TokenSet`.
///
/// Its description never shows a token.
public struct AuthConfig: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Seed access token (optional).
    public var accessToken: String?
    /// Seed refresh token or long-lived credential.
    public var refreshToken: String?
    /// Seed expiry, epoch seconds; nil means no proactive refresh (reactive only).
    public var expiresAt: Double?
    /// `expiresAt`: epoch seconds from 1970 to the end of year 9999 (what `Timestamp` writes).
    public static let expiresAtRange = NumberRange(0...253_402_300_799, unit: "s")
    /// `skewMarginSeconds`: 0 to a day.
    public static let skewMarginRange = NumberRange(0...86_400, unit: "s")
    /// How the token attaches to an upload.
    public var strategy: AuthStrategy
    /// The token endpoint; nil means seed-only, no refresh.
    public var refreshURL: String?
    /// Request body fields; `{accessToken}` and `{refreshToken}` are substituted.
    public var refreshPayload: StringMap
    /// Request headers, with the same templating.
    public var refreshHeaders: StringMap
    /// Form (`application/x-www-form-urlencoded`) or JSON.
    public var refreshBodyFormat: AuthBodyFormat
    /// Overrides of the response keys Beekon reads (dot-paths allowed).
    public var responseMapping: ResponseMapping?
    /// Refresh this many seconds before `expiresAt`.
    public var skewMarginSeconds: Double

    /// A recipe; every argument has seed 05's default.
    public init(
        accessToken: String? = nil, refreshToken: String? = nil, expiresAt: Double? = nil,
        strategy: AuthStrategy = .bearer, refreshURL: String? = nil,
        refreshPayload: StringMap = [:],
        refreshHeaders: StringMap = ["Authorization": "Bearer {accessToken}"],
        refreshBodyFormat: AuthBodyFormat = .form, responseMapping: ResponseMapping? = nil,
        skewMarginSeconds: Double = 60
    ) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
        self.strategy = strategy
        self.refreshURL = refreshURL
        self.refreshPayload = refreshPayload
        self.refreshHeaders = refreshHeaders
        self.refreshBodyFormat = refreshBodyFormat
        self.responseMapping = responseMapping
        self.skewMarginSeconds = skewMarginSeconds
    }

    public var description: String {
        "AuthConfig(accessToken: \(accessToken == nil ? "nil" : "<redacted>"), "
            + "refreshToken: \(refreshToken == nil ? "nil" : "<redacted>"), "
            + "expiresAt: \(expiresAt.map { "\($0)" } ?? "nil"), strategy: \(strategy.rawValue), "
            + "refreshURL: \(refreshURL ?? "nil"), refreshBodyFormat: \(refreshBodyFormat.rawValue))"
    }
}
