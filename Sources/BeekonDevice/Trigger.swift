/// Why a fix was captured; the raw value is its wire spelling in the upload payload.
public enum Trigger: String, Sendable, Hashable, CaseIterable, Codable {
    /// A regular fix that passed the gate.
    case interval
    /// The first admitted fix after the device went from stationary to moving.
    case motion
    /// A periodic copy of the last fix while stationary in `pauseWithCheckIns` mode.
    case checkIn = "check_in"
    /// A fix stored when a geofence crossing happened while tracking.
    case geofence
    /// A one-shot fix from `getCurrentLocation`; never stored.
    case manual
}
