/// Detects when the device stays put and when it moves again (spec §5).
///
/// The device is stationary once its fixes have stayed within `radiusMeters` of one point for
/// three minutes (or the emulated world says it stopped), and moving again when a fix leaves
/// that radius. Until either is first detected, motion is `unknown`.
public struct StationaryDetector: Sendable, Hashable {
    /// How long the device must stay within the radius to count as stationary.
    public static let dwellMillis: Int64 = 180_000

    /// The radius that counts as staying put, metres.
    public var radiusMeters: Double
    /// What is known about the device's motion.
    public private(set) var motion: Motion = .unknown
    /// Where the current stay began: the centre of the stationary region.
    public private(set) var anchor: Anchor?

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

    /// Feeds one OS fix; returns the change it reveals, if any.
    public mutating func observe(latitude: Double, longitude: Double, timestamp: Int64) -> Change? {
        guard let current = anchor else {
            anchor = Anchor(latitude: latitude, longitude: longitude, timestamp: timestamp)
            return nil
        }
        if isInsideRegion(latitude: latitude, longitude: longitude) {
            if motion != .stationary, timestamp - current.timestamp >= Self.dwellMillis {
                motion = .stationary
                return .becameStationary
            }
            return nil
        }
        anchor = Anchor(latitude: latitude, longitude: longitude, timestamp: timestamp)
        // Only leaving a stay is a change the SDK reports (a motion trigger, the check-ins'
        // end); unknown → moving just labels the fixes from here on.
        let wasStationary = motion == .stationary
        motion = .moving
        return wasStationary ? .becameMoving : nil
    }

    /// The emulated world knows the person stopped (a dwell in the route): stationary at once,
    /// around this point.
    public mutating func stopped(latitude: Double, longitude: Double, timestamp: Int64) -> Change? {
        anchor = Anchor(latitude: latitude, longitude: longitude, timestamp: timestamp)
        guard motion != .stationary else { return nil }
        motion = .stationary
        return .becameStationary
    }

    /// Whether a point lies within the radius of the current stay.
    public func isInsideRegion(latitude: Double, longitude: Double) -> Bool {
        guard let anchor else { return false }
        return Geodesy.distanceMeters(
            fromLatitude: anchor.latitude, longitude: anchor.longitude, toLatitude: latitude,
            longitude: longitude) <= radiusMeters
    }

    /// Forgets everything (a new `start()`).
    public mutating func reset() {
        motion = .unknown
        anchor = nil
    }
}
