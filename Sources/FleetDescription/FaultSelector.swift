import BeekonDevice

/// Which devices a fault or an admin action applies to.
public enum FaultSelector: Sendable, Hashable {
    /// Every device.
    case all
    /// The devices of one group.
    case group(String)
    /// A seeded fraction of all devices; without a seed, the fault's place in the timeline (or
    /// the admin action's number) seeds the choice.
    case fraction(Double, seed: UInt64? = nil)
    /// These devices.
    case ids([String])
    /// The devices whose state text is this (`tracking`, `paused(permissionRevoked)`, `dead`),
    /// or starts with it when it ends in `*` (`paused*`).
    case state(String)

    /// `fraction`: a share of the devices.
    public static let fractionRange = NumberRange(0...1)
}
