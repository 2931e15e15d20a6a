/// Detects when the device stays put and when it moves again (spec §5).
///
/// The device is stationary once its fixes have stayed within `radiusMeters` of one point for
/// three minutes (or the emulated world says it stopped), and moving again when it leaves that
/// radius. Until either is first detected, motion is `unknown`.
///
/// Each fix is weighed with the accuracy it reports, as the platforms weigh GPS against their
/// motion sensors (the seeds are silent; docs/device-model.md):
/// - *inside*: within the radius: it counts towards the three minutes;
/// - *beyond*: farther than the radius plus the whole accuracy (at most the radius again): its
///   accuracy circle lies outside the region;
/// - in between: no evidence either way.
///
/// A departure takes two fixes beyond in a row whose midpoint is beyond too, so that one
/// urban-canyon outlier, or two noisy fixes on opposite sides, neither ends a stay (and its
/// check-ins) nor restarts the three minutes. And while the motion sensors say the person stands
/// still (the emulated world's stop, from `stopped` to `walkedOn`), no fix is a departure: the
/// platforms trust their motion coprocessor over a GPS fix that jumps.
public struct StationaryDetector: Sendable, Hashable {
    /// How long the device must stay within the radius to count as stationary.
    public static let dwellMillis: Int64 = 180_000

    /// The radius that counts as staying put, metres.
    public var radiusMeters: Double
    /// What is known about the device's motion.
    public private(set) var motion: Motion = .unknown
    /// Where the current stay began: the centre of the stationary region.
    public private(set) var anchor: Anchor?
    /// The last fix beyond the region, waiting for a second to confirm a departure.
    public private(set) var pendingDeparture: Sighting?
    /// The motion sensors say the person stands still: GPS shows no departure.
    public private(set) var heldStill = false

    /// A point and the time the device was first seen there.
    public struct Anchor: Sendable, Hashable {
        public var latitude: Double
        public var longitude: Double
        public var timestamp: Int64
    }

    /// A fix's position and the accuracy it reported (0 when none).
    public struct Sighting: Sendable, Hashable {
        public var latitude: Double
        public var longitude: Double
        public var accuracy: Double
    }

    /// What one fix says about the current region.
    public enum Evidence: Sendable, Hashable {
        case inside
        case unclear
        case beyond
    }

    /// A detector that knows nothing yet.
    public init(radiusMeters: Double) {
        self.radiusMeters = radiusMeters
    }

    /// A change of motion that a fix revealed.
    public enum Change: Sendable, Hashable {
        /// The device has stayed put; fixes inside the region may be dropped.
        case becameStationary
        /// The device left the region it was stationary in (not the first move out of `unknown`:
        /// spec §5, "`motion` for the first admitted fix after stationary → moving").
        case becameMoving
    }

    /// Feeds one OS fix (its reported accuracy, metres, when known); returns the change it
    /// reveals, if any.
    public mutating func observe(
        latitude: Double, longitude: Double, accuracy: Double? = nil, timestamp: Int64
    ) -> Change? {
        guard let current = anchor else {
            anchor = Anchor(latitude: latitude, longitude: longitude, timestamp: timestamp)
            return nil
        }
        let sighting = Sighting(latitude: latitude, longitude: longitude, accuracy: Self.reported(accuracy))
        switch evidence(sighting) {
        case .inside:
            pendingDeparture = nil
            if motion != .stationary, timestamp - current.timestamp >= Self.dwellMillis {
                motion = .stationary
                return .becameStationary
            }
            return nil
        case .unclear:
            return nil
        case .beyond:
            guard !heldStill else { return nil }
            guard let previous = pendingDeparture else {
                pendingDeparture = sighting
                return nil
            }
            let midpoint = Sighting(
                latitude: (previous.latitude + latitude) / 2, longitude: (previous.longitude + longitude) / 2,
                accuracy: (previous.accuracy + sighting.accuracy) / 2)
            guard evidence(midpoint) == .beyond else {
                pendingDeparture = sighting
                return nil
            }
        }
        pendingDeparture = nil
        anchor = Anchor(latitude: latitude, longitude: longitude, timestamp: timestamp)
        // Only leaving a stay is a change the SDK reports (a motion trigger, the check-ins'
        // end); unknown → moving just labels the fixes from here on.
        let wasStationary = motion == .stationary
        motion = .moving
        return wasStationary ? .becameMoving : nil
    }

    /// What a fix at this position, with this reported accuracy, says about the current region.
    public func evidence(latitude: Double, longitude: Double, accuracy: Double?) -> Evidence {
        evidence(Sighting(latitude: latitude, longitude: longitude, accuracy: Self.reported(accuracy)))
    }

    private func evidence(_ sighting: Sighting) -> Evidence {
        guard let anchor else { return .beyond }
        let distance = Geodesy.distanceMeters(
            fromLatitude: anchor.latitude, longitude: anchor.longitude, toLatitude: sighting.latitude,
            longitude: sighting.longitude)
        if distance <= radiusMeters { return .inside }
        return distance > radiusMeters + min(sighting.accuracy, radiusMeters) ? .beyond : .unclear
    }

    /// An accuracy the OS gave wrong (NaN, negative) counts as none, as spec §4 coerces it.
    private static func reported(_ accuracy: Double?) -> Double {
        accuracy.flatMap { $0.isFinite && $0 > 0 ? $0 : nil } ?? 0
    }

    /// The emulated world knows the person stopped (a dwell in the route): stationary at once,
    /// around this point.
    public mutating func stopped(latitude: Double, longitude: Double, timestamp: Int64) -> Change? {
        anchor = Anchor(latitude: latitude, longitude: longitude, timestamp: timestamp)
        pendingDeparture = nil
        heldStill = true
        guard motion != .stationary else { return nil }
        motion = .stationary
        return .becameStationary
    }

    /// The emulated world knows the person walks on (the route's stop ended): GPS fixes beyond
    /// the region count as a departure again.
    public mutating func walkedOn() {
        heldStill = false
    }

    /// Forgets everything (a new `start()`).
    public mutating func reset() {
        motion = .unknown
        anchor = nil
        pendingDeparture = nil
        heldStill = false
    }
}
