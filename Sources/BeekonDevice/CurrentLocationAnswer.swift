/// The answer to `getCurrentLocation`.
public enum CurrentLocationAnswer: Sendable, Hashable {
    /// The next OS fix, tagged `manual`.
    case fix(Location)
    /// No fix within the timeout.
    case timedOut
    /// A precondition fails: permission missing or location services off.
    case unavailable(PauseReason)
}
