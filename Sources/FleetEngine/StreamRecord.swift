import BeekonDevice

/// A value a device's SDK emitted on one of its streams (spec §6): `syncStatus` or `authChanges`.
public struct StreamRecord: Sendable, Hashable {
    /// Virtual Unix ms.
    public var at: Int64
    /// The device's id.
    public var device: String
    public var value: Value
    /// Counts the fleet's notable stream values over the run (set when logged; 0 otherwise).
    public var number = 0

    public enum Value: Sendable, Hashable {
        case syncStatus(SyncStatus)
        case authChange(AuthChange)
    }

    /// Worth a live event of its own: a retry or a failure of sync, any auth change. The rest
    /// (in flight, succeeded, idle) each upload's outcome already tells.
    public var isNotable: Bool {
        switch value {
        case .syncStatus(.retrying), .syncStatus(.failed), .authChange: true
        case .syncStatus: false
        }
    }
}
