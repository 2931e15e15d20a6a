/// The timers a device arms; at most one of each is pending.
public enum DeviceTimer: Sendable, Hashable {
    /// The scheduled upload cadence.
    case syncInterval
    /// The retry of a failed upload after backoff.
    case uploadRetry
    /// The proactive token refresh at `expiresAt − skewMarginSeconds`.
    case proactiveRefresh
    /// The refresh circuit breaker closes again.
    case refreshBreaker
    /// A transient OS error is over.
    case osErrorRecovery
    /// The next `check_in` row while stationary.
    case checkIn
    /// A `getCurrentLocation` call times out.
    case currentLocationTimeout(requestID: Int)
}
