import BeekonDevice

/// Makes fixes and geofence events with ids from a fixed seed, so every run stores the same rows.
struct FixMaker {
    private var random: SplitMix64
    private var ids = UUIDv7Generator()

    init(seed: UInt64 = 7) {
        random = SplitMix64(seed: seed)
    }

    /// A fix at `timestamp` with every optional field measured unless told otherwise.
    mutating func fix(
        at timestamp: Int64, latitude: Double = 52.52, longitude: Double = 13.405,
        accuracy: Double? = 8, speed: Double? = 1.5, bearing: Double? = 90,
        altitude: Double? = 34, quality: Quality? = nil, trigger: Trigger = .interval,
        motion: Motion = .moving, activity: Activity? = nil, isMock: Bool = false
    ) -> Location {
        let id = ids.next(atUnixMillis: timestamp, using: &random)
        guard
            let fix = Location(
                id: id, latitude: latitude, longitude: longitude, timestamp: timestamp,
                accuracy: accuracy, speed: speed, bearing: bearing, altitude: altitude,
                quality: quality, trigger: trigger, motion: motion, activity: activity,
                isMock: isMock)
        else { fatalError("test coordinates must be finite") }
        return fix
    }

    /// A geofence crossing at `timestamp`.
    mutating func event(
        at timestamp: Int64, geofenceID: String = "home", type: GeofenceEventType = .enter
    ) -> GeofenceEvent {
        GeofenceEvent(
            id: ids.next(atUnixMillis: timestamp, using: &random), geofenceID: geofenceID,
            type: type, timestamp: timestamp)
    }
}
