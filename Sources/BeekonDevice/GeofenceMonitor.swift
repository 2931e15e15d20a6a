/// The device's geofences, and which of them it is inside, detected from successive positions.
///
/// Works whether or not the device is tracking. The first position after a geofence is added
/// sets whether the device is inside it without an event. A crossing is then reported as the
/// platforms' region monitoring reports it (the seeds are silent; docs/device-model.md):
/// - with hysteresis: a position counts as inside only within the radius less a cushion, and
///   as outside only beyond the radius plus the cushion (`cushionMeters`: a tenth of the
///   radius, 5–50 m, at most half the radius); positions in the band between are no evidence;
/// - with dwell: the device must stay on the new side for `dwellMillis` (iOS documents 20 s for
///   region monitoring; Android's geofencing is as slow or slower), and a position back on the
///   old side cancels it. The event carries the crossing time: the first position on the new
///   side.
/// So GPS noise at the edge does not flap a geofence between enter and exit.
public struct GeofenceMonitor: Sendable, Hashable {
    /// How long the device must stay on the new side of an edge before the crossing counts.
    public static let dwellMillis: Int64 = 20_000

    /// The watched geofences, in the order they were added (a replaced one keeps its place).
    public private(set) var geofences: [Geofence] = []
    /// Whether the device is inside each geofence, by id; absent until a position is known.
    private var inside: [String: Bool] = [:]
    /// When the device was first seen on the other side of a geofence's edge, by id.
    private var crossingSince: [String: Int64] = [:]

    /// A crossing the monitor reports.
    public struct Crossing: Sendable, Hashable {
        public var geofence: Geofence
        public var type: GeofenceEventType
        /// The first position on the new side, Unix ms.
        public var timestamp: Int64
    }

    /// The band either side of the edge that is no evidence of a crossing, metres.
    public static func cushionMeters(radius: Double) -> Double {
        min(max(radius / 10, 5), 50, radius / 2)
    }

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
            crossingSince[geofence.id] = nil
        }
    }

    /// Stops watching the geofences with these ids; unknown ids are ignored.
    public mutating func remove(ids: [String]) {
        let removed = Set(ids)
        geofences.removeAll { removed.contains($0.id) }
        for id in removed {
            inside[id] = nil
            crossingSince[id] = nil
        }
    }

    /// Stops watching every geofence.
    public mutating func removeAll() {
        geofences = []
        inside = [:]
        crossingSince = [:]
    }

    /// The crossings a new position (at `timestamp`, Unix ms) confirms, in geofence order.
    public mutating func positionChanged(
        latitude: Double, longitude: Double, timestamp: Int64
    ) -> [Crossing] {
        var crossings: [Crossing] = []
        for geofence in geofences {
            let distance = Geodesy.distanceMeters(
                fromLatitude: geofence.latitude, longitude: geofence.longitude,
                toLatitude: latitude, longitude: longitude)
            guard let wasInside = inside[geofence.id] else {
                inside[geofence.id] = distance <= geofence.radiusMeters
                continue
            }
            let cushion = Self.cushionMeters(radius: geofence.radiusMeters)
            let side: Bool? =
                distance <= geofence.radiusMeters - cushion
                ? true : distance > geofence.radiusMeters + cushion ? false : nil
            guard let isInside = side else { continue }
            guard isInside != wasInside else {
                crossingSince[geofence.id] = nil
                continue
            }
            let since = crossingSince[geofence.id] ?? timestamp
            guard timestamp - since >= Self.dwellMillis else {
                crossingSince[geofence.id] = since
                continue
            }
            crossingSince[geofence.id] = nil
            inside[geofence.id] = isInside
            crossings.append(Crossing(geofence: geofence, type: isInside ? .enter : .exit, timestamp: since))
        }
        return crossings
    }

    /// What is wrong with `geofence`, or nil when it may be added.
    public static func problem(with geofence: Geofence) -> GeofenceValidationError.Reason? {
        if geofence.id.isEmpty { return .emptyID }
        if geofence.id.unicodeScalars.count > Geofence.idMaxLength { return .idTooLong }
        if geofence.id.hasPrefix(Geofence.reservedIDPrefix) { return .reservedPrefix }
        if !(geofence.latitude >= -90 && geofence.latitude <= 90) { return .latitudeOutOfRange }
        if !(geofence.longitude >= -180 && geofence.longitude <= 180) { return .longitudeOutOfRange }
        if !(geofence.radiusMeters > 0 && geofence.radiusMeters.isFinite) { return .radiusNotPositive }
        return nil
    }
}
