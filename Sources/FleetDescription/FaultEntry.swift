/// One entry of the fault timeline.
public struct FaultEntry: Sendable, Hashable {
    /// When, ms after the clock's start.
    public var atMillis: Int64
    /// How long, for actions that last (see `ActionDescription.Ending`): the opposite action
    /// runs after it; for `kill` and `reboot`, the delay `ProcessOutage` reads per platform.
    public var forMillis: Int64?
    /// Which devices.
    public var selector: FaultSelector
    /// What happens to them, with its parameters.
    public var action: FleetAction
    /// The line in the fleet file, for reports (0 for a fault the admin API began).
    public var line: Int

    package init(atMillis: Int64, forMillis: Int64?, selector: FaultSelector, action: FleetAction, line: Int) {
        self.atMillis = atMillis
        self.forMillis = forMillis
        self.selector = selector
        self.action = action
        self.line = line
    }
}
