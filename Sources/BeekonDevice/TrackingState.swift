/// The SDK's five tracking states (seed 01).
public enum TrackingState: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Configured, not started.
    case idle
    /// `start()` was called; the platform is bringing up its location pipeline.
    case starting
    /// Live updates flow from the OS provider through the gate.
    case tracking
    /// Something external interrupted tracking; recovers by itself.
    case paused(PauseReason)
    /// `stop()` was called; only a new `start()` leaves this state.
    case stopped

    public var description: String {
        switch self {
        case .idle: "idle"
        case .starting: "starting"
        case .tracking: "tracking"
        case .paused(let reason): "paused(\(reason.rawValue))"
        case .stopped: "stopped"
        }
    }
}
