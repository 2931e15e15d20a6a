import BeekonDevice

/// A device's state as the fleet lists it: the SDK's own tracking state, or what the fleet knows
/// and the SDK cannot say. Text only at the edge (`description`: `tracking`,
/// `paused(permissionRevoked)`, `dead`, `storeError`).
public enum DeviceState: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The SDK's state (a device not yet spawned is `idle`).
    case sdk(TrackingState)
    /// The app's process is gone: killed, or the phone is down.
    case dead
    /// Its store fails; the SDK's state runs on underneath.
    case storeError

    public var description: String {
        switch self {
        case .sdk(let state): state.description
        case .dead: "dead"
        case .storeError: "storeError"
        }
    }

    /// By their text, as every report lists them.
    public static func < (lhs: DeviceState, rhs: DeviceState) -> Bool { lhs.description < rhs.description }

    /// Whether a selector's or a query's `state` pattern picks it: its text exactly, or the
    /// text's start when the pattern ends in `*` (`paused*`).
    public func matches(_ pattern: String) -> Bool {
        if pattern.hasSuffix("*") { return description.hasPrefix(pattern.dropLast()) }
        return description == pattern
    }
}
