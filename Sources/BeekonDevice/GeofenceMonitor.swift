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

/// The device's geofences, and which of them it is inside, detected from successive positions.
///
/// Works whether or not the device is tracking. The first position after a geofence is added
/// sets whether the device is inside it without an event; later positions on the other side of
/// its edge give `enter` or `exit`.
public struct GeofenceMonitor: Sendable, Hashable {
    /// The watched geofences, in the order they were added (a replaced one keeps its place).
    public private(set) var geofences: [Geofence] = []
    /// Whether the device is inside each geofence, by id; absent until a position is known.
    private var inside: [String: Bool] = [:]

    /// A monitor with no geofences.
    public init() {}

    /// Adds `newGeofences` all or nothing: one invalid geofence refuses the whole request.
    /// Re-adding an id replaces that geofence (and forgets whether the device was inside it).
    public mutating func add(_ newGeofences: [Geofence]) throws(GeofenceValidationError) {
        for (index, geofence) in newGeofences.enumerated() {
            if let reason = Self.problem(with: geofence) {
                throw GeofenceValidationError(index: index, id: geofence.id, reason: reason)
            }
        }
        for geofence in newGeofences {
            if let index = geofences.firstIndex(where: { $0.id == geofence.id }) {
                geofences[index] = geofence
            } else {
                geofences.append(geofence)
            }
            inside[geofence.id] = nil
        }
    }

    /// Stops watching the geofences with these ids; unknown ids are ignored.
    public mutating func remove(ids: [String]) {
        let removed = Set(ids)
        geofences.removeAll { removed.contains($0.id) }
        for id in removed { inside[id] = nil }
    }

    /// Stops watching every geofence.
    public mutating func removeAll() {
        geofences = []
        inside = [:]
    }

    /// The crossings a new position reveals, in geofence order.
    public mutating func positionChanged(
        latitude: Double, longitude: Double
    ) -> [(geofence: Geofence, type: GeofenceEventType)] {
        var crossings: [(geofence: Geofence, type: GeofenceEventType)] = []
        for geofence in geofences {
            let distance = Geodesy.distanceMeters(
                fromLatitude: geofence.latitude, longitude: geofence.longitude,
                toLatitude: latitude, longitude: longitude)
            let isInside = distance <= geofence.radiusMeters
            if let wasInside = inside[geofence.id], wasInside != isInside {
                crossings.append((geofence, isInside ? .enter : .exit))
            }
            inside[geofence.id] = isInside
        }
        return crossings
    }

    /// What is wrong with `geofence`, or nil when it may be added.
    public static func problem(with geofence: Geofence) -> GeofenceValidationError.Reason? {
        if geofence.id.isEmpty { return .emptyID }
        if geofence.id.count > 100 { return .idTooLong }
        if geofence.id.hasPrefix("bk:") { return .reservedPrefix }
        if !(geofence.latitude >= -90 && geofence.latitude <= 90) { return .latitudeOutOfRange }
        if !(geofence.longitude >= -180 && geofence.longitude <= 180) { return .longitudeOutOfRange }
        if !(geofence.radiusMeters > 0 && geofence.radiusMeters.isFinite) { return .radiusNotPositive }
        return nil
    }
}
