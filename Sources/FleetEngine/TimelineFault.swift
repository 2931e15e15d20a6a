import FleetDescription

/// A fault as it ran, from the fleet file's timeline or the admin API: when it began, how many
/// devices it took, and when it ended (nil while on without a known end, or for an action with
/// no end, such as `kill` without `for`).
public struct TimelineFault: Sendable, Hashable, Codable {
    /// Its number: its place in the fleet file's `faults:` for the timeline's; after them, by the
    /// admin action that began it, for the API's (the same on every shard, which all take it).
    public var fault: Int
    public var source: ActionSource
    public var action: FleetAction.Name
    public var startedAt: Int64
    /// When it ends: its `for` (it is undone, recovers or relaunches), known from its start, or
    /// the instant the API ended it (`DELETE /api/v1/faults/{fault}`, or its opposite action).
    public var endsAt: Int64?
    /// Devices it was applied to.
    public var applied: Int

    package init(
        fault: Int, source: ActionSource, action: FleetAction.Name, startedAt: Int64, endsAt: Int64?, applied: Int
    ) {
        self.fault = fault
        self.source = source
        self.action = action
        self.startedAt = startedAt
        self.endsAt = endsAt
        self.applied = applied
    }
}
