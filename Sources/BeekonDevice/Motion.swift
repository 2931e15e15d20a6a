/// Whether the device was moving when a fix was captured; the raw value is its wire spelling.
public enum Motion: String, Sendable, Hashable, CaseIterable, Codable {
    case moving
    case stationary
    /// Not yet detected, or never with `keepTracking`.
    case unknown
}
