import BeekonDevice

/// A state a device passed into.
public struct StateChange: Sendable, Hashable {
    /// Virtual Unix ms.
    public var at: Int64
    /// The state it entered.
    public var state: DeviceState
    /// Why a dead app came back, on the first state it entered (or listed) on relaunch; nil on
    /// every other change.
    public var cause: RelaunchCause?
}
