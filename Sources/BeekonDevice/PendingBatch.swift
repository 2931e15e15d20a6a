/// The rows of one upload as the store hands them out: one session's oldest pending fixes and
/// its geofence events.
///
/// Remembers exactly which stored rows it holds (their store row numbers, with their ids), so
/// that acknowledging or dropping it deletes those rows and nothing else, even if rows were
/// deleted and their numbers reused while it was in flight.
public struct PendingBatch: Sendable, Hashable {
    /// The session every row in the batch belongs to; "" for rows recorded with no session.
    public let sessionID: String
    /// Fixes, oldest first (by timestamp, then insertion order).
    public let locations: [Location]
    /// Geofence events, oldest first.
    public let geofenceEvents: [GeofenceEvent]
    /// The store's row number of each fix in `locations`, in the same order.
    public let fixRows: [Int64]
    /// The store's row number of each event in `geofenceEvents`, in the same order.
    public let eventRows: [Int64]

    /// A batch from its rows and their row numbers (the same counts, in the same order).
    public init(
        sessionID: String, locations: [Location], fixRows: [Int64],
        geofenceEvents: [GeofenceEvent], eventRows: [Int64]
    ) {
        precondition(locations.count == fixRows.count && geofenceEvents.count == eventRows.count)
        self.sessionID = sessionID
        self.locations = locations
        self.geofenceEvents = geofenceEvents
        self.fixRows = fixRows
        self.eventRows = eventRows
    }

    /// Whether the batch holds no row at all.
    public var isEmpty: Bool { locations.isEmpty && geofenceEvents.isEmpty }
}
