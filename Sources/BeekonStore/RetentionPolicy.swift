/// How much a device store keeps; applied after every write, in the write's own transaction.
///
/// Seed 04: local-only mode deletes rows older than 7 days; both modes keep at most the newest
/// 100 000 fixes and 10 000 geofence events. With sync on there is no age limit, so an offline
/// device can drain a long backlog when it reconnects.
public struct RetentionPolicy: Sendable, Hashable {
    /// Rows whose `ts` is older than the write's `now` minus this many milliseconds are deleted;
    /// nil keeps rows of any age.
    public var maxAge: Int64?
    /// The most fixes kept; beyond it the oldest (by `ts`, then insertion order) are deleted.
    public var maxFixes: Int
    /// The most geofence events kept; beyond it the oldest are deleted.
    public var maxEvents: Int

    /// A policy from its three limits (tests inject small ones).
    public init(maxAge: Int64?, maxFixes: Int = 100_000, maxEvents: Int = 10_000) {
        self.maxAge = maxAge
        self.maxFixes = maxFixes
        self.maxEvents = maxEvents
    }

    /// Seven days, in milliseconds.
    public static let sevenDays: Int64 = 7 * 24 * 60 * 60 * 1000

    /// Local-only mode (no `sync` configured): seven days, and the caps.
    public static let localOnly = RetentionPolicy(maxAge: sevenDays)

    /// Sync on: no age limit, only the caps.
    public static let syncing = RetentionPolicy(maxAge: nil)

    /// The SDK's policy for a device with sync on or off.
    public static func standard(syncEnabled: Bool) -> RetentionPolicy {
        syncEnabled ? .syncing : .localOnly
    }
}
