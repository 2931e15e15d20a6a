import FleetDescription

/// How long the backlog took to drain after a fault ended (the timeline's or the API's, measured
/// alike): until as few fixes were pending as when the fault began.
public struct FaultDrain: Sendable, Hashable, Codable {
    /// The fault's number (see `TimelineFault.fault`), where it came from, and its action's name.
    public var fault: Int
    public var source: ActionSource
    public var action: FleetAction.Name
    /// When the fault began and ended, virtual Unix ms.
    public var startedAt: Int64
    public var endedAt: Int64
    /// Fixes pending (the whole fleet) when it began, and at its end.
    public var pendingBefore: Int
    public var pendingAtEnd: Int
    /// Virtual ms from its end until the backlog was back to `pendingBefore`; nil while it is not.
    public var drainMillis: Int64?

    /// Virtual ms it took to drain, or, still draining, from its end to `virtualNow`.
    public func millis(at virtualNow: Int64) -> Double { Double(drainMillis ?? virtualNow - endedAt) }

    package init(
        fault: Int, source: ActionSource, action: FleetAction.Name, startedAt: Int64, endedAt: Int64,
        pendingBefore: Int, pendingAtEnd: Int, drainMillis: Int64?
    ) {
        self.fault = fault
        self.source = source
        self.action = action
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.pendingBefore = pendingBefore
        self.pendingAtEnd = pendingAtEnd
        self.drainMillis = drainMillis
    }
}
