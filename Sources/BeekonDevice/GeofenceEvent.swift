/// A recorded geofence crossing, as stored and uploaded.
public struct GeofenceEvent: Sendable, Hashable {
    /// Event id (UUIDv7); the ingest server dedupes on it.
    public var id: UUIDv7
    /// The app's id of the geofence that fired.
    public var geofenceID: String
    /// Whether the device entered or left the region.
    public var type: GeofenceEventType
    /// When the crossing occurred, in Unix milliseconds.
    public var timestamp: Int64

    /// Builds an event from its four wire fields.
    public init(id: UUIDv7, geofenceID: String, type: GeofenceEventType, timestamp: Int64) {
        self.id = id
        self.geofenceID = geofenceID
        self.type = type
        self.timestamp = timestamp
    }
}
