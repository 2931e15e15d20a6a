/// Why tracking is paused; the raw value is the Swift SDK's spelling.
public enum PauseReason: String, Sendable, Hashable, CaseIterable, Codable {
    /// The user revoked location permission.
    case permissionRevoked
    /// System-wide location services were turned off.
    case locationDisabled
    /// A transient OS error; Beekon recovers after a few seconds.
    case unknown
}
