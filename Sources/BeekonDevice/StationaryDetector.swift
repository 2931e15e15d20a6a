/// Detects when the device stays put and when it moves again (spec §5).
///
/// The device is stationary once its fixes have stayed within `radiusMeters` of one point for
/// three minutes (or the emulated world says it stopped), and moving again when it leaves that
/// radius. Until either is first detected, motion is `unknown`.
///
/// Leaving is judged as the platforms' motion detection does, against the noise the fixes
/// carry (the seeds are silent; docs/device-model.md): a fix counts as outside only beyond the
/// radius plus half its reported accuracy (at most half the radius), and only a second such fix
/// in a row confirms the departure. One noisy fix or urban-canyon outlier neither ends a stay
/// (and its check-ins) nor restarts the three minutes.
public struct StationaryDetector: Sendable, Hashable {
    /// How long the device must stay within the radius to count as stationary.
    public static let dwellMillis: Int64 = 180_000
    /// Fixes in a row beyond the region that confirm a departure.
    public static let fixesToLeave = 2

    /// The radius that counts as staying put, metres.
    public var radiusMeters: Double
    /// What is known about the device's motion.
    public private(set) var motion: Motion = .unknown
    /// Where the current stay began: the centre of the stationary region.
    public private(set) var anchor: Anchor?
    /// Fixes in a row seen beyond the region, not yet enough to call it a departure.
    public private(set) var fixesOutside = 0

    /// A point and the time the device was first seen there.
    public struct Anchor: Sendable, Hashable {
        public var latitude: Double
        public var longitude: Double
        public var timestamp: Int64
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
        if !isBeyondRegion(latitude: latitude, longitude: longitude, accuracy: accuracy) {
            fixesOutside = 0
            if motion != .stationary, timestamp - current.timestamp >= Self.dwellMillis {
                motion = .stationary
                return .becameStationary
            }
            return nil
        }
        fixesOutside += 1
        guard fixesOutside >= Self.fixesToLeave else { return nil }
        fixesOutside = 0
        anchor = Anchor(latitude: latitude, longitude: longitude, timestamp: timestamp)
        // Only leaving a stay is a change the SDK reports (a motion trigger, the check-ins'
        // end); unknown → moving just labels the fixes from here on.
        let wasStationary = motion == .stationary
        motion = .moving
        return wasStationary ? .becameMoving : nil
    }

    /// Whether a fix lies beyond the current region, allowing for its reported accuracy.
    public func isBeyondRegion(latitude: Double, longitude: Double, accuracy: Double?) -> Bool {
        guard let anchor else { return true }
        // An accuracy the OS gave wrong (NaN, negative) counts as none, as spec §4 coerces it.
        let reported = accuracy.flatMap { $0.isFinite && $0 > 0 ? $0 : nil } ?? 0
        let allowance = min(reported, radiusMeters) / 2
        return Geodesy.distanceMeters(
            fromLatitude: anchor.latitude, longitude: anchor.longitude, toLatitude: latitude,
            longitude: longitude) > radiusMeters + allowance
    }

    /// The emulated world knows the person stopped (a dwell in the route): stationary at once,
    /// around this point.
    public mutating func stopped(latitude: Double, longitude: Double, timestamp: Int64) -> Change? {
        anchor = Anchor(latitude: latitude, longitude: longitude, timestamp: timestamp)
        fixesOutside = 0
        guard motion != .stationary else { return nil }
        motion = .stationary
        return .becameStationary
    }

    /// Forgets everything (a new `start()`).
    public mutating func reset() {
        motion = .unknown
        anchor = nil
        fixesOutside = 0
    }
}
