/// Why sync stopped trying by itself.
public enum SyncFailure: String, Sendable, Hashable {
    /// Authentication failed and cannot be fixed without `configure()` or `sync()`.
    case auth
    /// The server rejected a batch as permanently bad (it was dropped).
    case rejected
}
