/// The `authChanges` stream's values. None carries a token.
public enum AuthChange: Sendable, Hashable {
    /// A seed from `configure()` was adopted.
    case seeded(expiresAt: Int64?)
    /// A refresh rotated the tokens.
    case refreshed(expiresAt: Int64?)
    /// The credentials are dead: no refresh until a new seed.
    case deadCredentials
    /// Refreshing is suspended after repeated failures, until this instant.
    case breakerOpened(until: Int64)
}
