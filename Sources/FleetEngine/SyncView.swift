/// Where a device's sync engine is, as the admin API shows it (the SDK's own `syncStatus`
/// stream is `BeekonDevice.SyncStatus`).
public struct SyncView: Sendable, Hashable {
    /// The sync engine's phase.
    public enum Phase: String, Sendable, Hashable, CaseIterable {
        case idle, loading, uploading, awaitingRefresh, backingOff, awaitingNetwork, suspended
        /// Local-only: the configuration has no sync block.
        case off
    }

    public var phase: Phase
    /// Failed uploads in a row.
    public var consecutiveFailures: Int
    /// When a backed-off batch is retried, virtual Unix ms.
    public var nextAttemptAt: Int64?
}
