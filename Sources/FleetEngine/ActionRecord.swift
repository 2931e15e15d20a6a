import FleetDescription

/// A fault or admin action that ran.
public struct ActionRecord: Sendable, Hashable {
    /// Which action.
    public var action: FleetAction.Name
    /// How many devices it applied to.
    public var applied: Int
    /// Virtual Unix ms.
    public var at: Int64
    /// Where it came from.
    public var source: ActionSource
    /// Counts actions over the run (set when logged), so a reader can tell new ones.
    public var number: UInt64 = 0
}
