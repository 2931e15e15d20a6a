/// What tracking does while the device is stationary.
public enum StationaryMode: String, Sendable, Hashable, CaseIterable, Codable {
    /// Stop admitting fixes inside the stationary region. The default.
    case pause
    /// Nothing special: the gate keeps filtering.
    case keepTracking
    /// As `pause`, plus a `check_in` row every 15 minutes.
    case pauseWithCheckIns
}
