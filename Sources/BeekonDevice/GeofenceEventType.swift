/// The direction of a geofence crossing; the raw value is its wire spelling.
public enum GeofenceEventType: String, Sendable, Hashable, CaseIterable, Codable {
    case enter
    case exit
}
