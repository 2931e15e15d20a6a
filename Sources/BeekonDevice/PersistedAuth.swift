/// The auth state a device persists: the live tokens and the seed they grew from, so that a
/// new seed from `configure()` can be told apart from the one already adopted, and the
/// credentials' health, so that a relaunch neither revives dead credentials nor forgets the
/// breaker (seed 05: "rotated tokens survive process death"; a refresh endpoint that is failing
/// is not hammered again because the app was killed).
public struct PersistedAuth: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The live, rotated tokens.
    public var tokens: TokenSet
    /// The seed the tokens came from.
    public var seed: TokenSet
    /// Dead credentials and the refresh breaker.
    public var health: AuthHealth

    /// Persisted auth from its parts.
    public init(tokens: TokenSet, seed: TokenSet, health: AuthHealth = AuthHealth()) {
        self.tokens = tokens
        self.seed = seed
        self.health = health
    }

    /// Reads stores written before `health` was kept: their credentials count as healthy.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        tokens = try container.decode(TokenSet.self, forKey: .tokens)
        seed = try container.decode(TokenSet.self, forKey: .seed)
        health = try container.decodeIfPresent(AuthHealth.self, forKey: .health) ?? AuthHealth()
    }

    public var description: String { "PersistedAuth(tokens: \(tokens), seed: \(seed), health: \(health))" }
}
