/// Why `addGeofences` refused a request; nothing of the request was added.
public struct GeofenceValidationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong with the geofence.
    public enum Reason: String, Sendable, Hashable, CaseIterable {
        case emptyID = "id is empty"
        case idTooLong = "id is longer than 100 characters"
        case reservedPrefix = "id starts with the reserved prefix bk:"
        case latitudeOutOfRange = "latitude is not within -90...90"
        case longitudeOutOfRange = "longitude is not within -180...180"
        case radiusNotPositive = "radius is not greater than 0"
    }

    /// The position of the offending geofence in the request.
    public let index: Int
    /// Its id as given.
    public let id: String
    /// What is wrong with it.
    public let reason: Reason

    public var description: String {
        "geofence \(index) (id \"\(id.prefix(100))\"): \(reason.rawValue)"
    }
}
