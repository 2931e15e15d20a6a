import BeekonDevice

/// A row a device stores: an admitted fix or a geofence crossing, with the session it belongs
/// to ("" for none).
public enum StoreRow: Sendable, Hashable {
    case fix(Location, sessionID: String)
    case event(GeofenceEvent, sessionID: String)

    /// The table it goes to.
    var table: StoreTable {
        switch self {
        case .fix: .fixes
        case .event: .events
        }
    }

    /// Its `ts`, which retention's age limit reads.
    public var timestamp: Int64 {
        switch self {
        case .fix(let fix, _): fix.timestamp
        case .event(let event, _): event.timestamp
        }
    }

    /// What storing it alone is called in an error.
    var operation: String {
        switch self {
        case .fix: "insert fix"
        case .event: "insert geofence event"
        }
    }
}
