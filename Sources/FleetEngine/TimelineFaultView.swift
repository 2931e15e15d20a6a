import FleetDescription

/// A fault as the run stands, the fleet file's (upcoming, on, or over) or one the API began.
public struct TimelineFaultView: Sendable, Hashable {
    public enum Phase: String, Sendable, Hashable, CaseIterable {
        case upcoming, active, done
    }

    /// Its number (see `TimelineFault.fault`), where it came from, and its line in the fleet file
    /// (nil for the API's).
    public var fault: Int
    public var source: ActionSource
    public var line: Int?
    public var action: FleetAction.Name
    /// Which devices, as the fleet file says (`all`, `group: walkers`, `fraction: 0.2`, …).
    public var selector: String
    /// When it starts, and when it ends (its `for`, or the API's end; nil without either),
    /// virtual Unix ms.
    public var startsAt: Int64
    public var endsAt: Int64?
    public var phase: Phase
    /// Devices it was applied to (nil until it starts).
    public var applied: Int?
    /// Whether it can be ended now (`DELETE /api/v1/faults/{fault}`): on, with an opposite action.
    public var endable: Bool
    /// When the API ended it (`DELETE /api/v1/faults/{fault}`, or its opposite action), virtual
    /// Unix ms.
    public var endedEarlyAt: Int64?

    package init(
        fault: Int, source: ActionSource, line: Int?, action: FleetAction.Name, selector: String, startsAt: Int64,
        endsAt: Int64?, phase: Phase, applied: Int?, endable: Bool, endedEarlyAt: Int64?
    ) {
        self.fault = fault
        self.source = source
        self.line = line
        self.action = action
        self.selector = selector
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.phase = phase
        self.applied = applied
        self.endable = endable
        self.endedEarlyAt = endedEarlyAt
    }
}
