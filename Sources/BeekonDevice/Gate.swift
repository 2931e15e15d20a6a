/// The SDK's gate: which OS fixes are admitted, and the quality flag of each admitted fix.
///
/// The first fix after `start()` passes. A later fix passes only if at least `minTimeMillis`
/// passed since the last admitted fix AND it is at least `minDistanceMeters` away from it, both
/// measured on the OS fix timestamps, never the time of arrival. A fix older than the last
/// admitted one is rejected. A threshold of 0 disables that side.
public struct Gate: Sendable, Hashable {
    /// Minimum time between admitted fixes, in milliseconds; 0 disables the time side.
    public var minTimeMillis: Int64
    /// Minimum distance between admitted fixes, in metres; 0 disables the distance side.
    public var minDistanceMeters: Double
    /// The last admitted fix; nil until the first fix after `start()`.
    public private(set) var lastAdmitted: Location?

    /// Accuracy above this (metres) flags a fix `low_accuracy`.
    public static let lowAccuracyMeters = 100.0
    /// Speed from the last admitted fix above this (m/s) flags a fix `implausible_speed`.
    public static let implausibleSpeedMetersPerSecond = 300.0

    /// A gate with these thresholds that has admitted nothing yet.
    public init(minTimeMillis: Int64, minDistanceMeters: Double) {
        self.minTimeMillis = minTimeMillis
        self.minDistanceMeters = minDistanceMeters
    }

    /// Why a fix did not pass.
    public enum Rejection: Sendable, Hashable {
        /// Its timestamp is before the last admitted fix's.
        case outOfOrder
        /// Too soon after the last admitted fix.
        case tooSoon
        /// Too close to the last admitted fix.
        case tooClose
    }

    /// What the gate did with a fix.
    public enum Verdict: Sendable, Hashable {
        /// Passed, with its quality set.
        case admitted(Location)
        /// Did not pass.
        case rejected(Rejection)
    }

    /// Offers `fix` to the gate. When it passes it becomes the last admitted fix and is
    /// returned with its `quality` set; otherwise the reason is returned.
    public mutating func admit(_ fix: Location) -> Verdict {
        guard let last = lastAdmitted else {
            var admitted = fix
            admitted.quality = Self.quality(of: fix, after: nil)
            lastAdmitted = admitted
            return .admitted(admitted)
        }
        let elapsed = fix.timestamp - last.timestamp
        if elapsed < 0 { return .rejected(.outOfOrder) }
        if elapsed < minTimeMillis { return .rejected(.tooSoon) }
        if minDistanceMeters > 0, Geodesy.distanceMeters(last, fix) < minDistanceMeters {
            return .rejected(.tooClose)
        }
        var admitted = fix
        admitted.quality = Self.quality(of: fix, after: last)
        lastAdmitted = admitted
        return .admitted(admitted)
    }

    /// Forgets the last admitted fix, so the next fix passes as the first (a new `start()`).
    public mutating func reset() {
        lastAdmitted = nil
    }

    /// Marks a fix stored outside the gate (a check-in, a geofence fix) as the last admitted.
    public mutating func noteAdmitted(_ fix: Location) {
        lastAdmitted = fix
    }

    /// Informational quality: `implausible_speed` above 300 m/s from the last admitted fix
    /// (never on the first fix, only when time passed), else `low_accuracy` above 100 m,
    /// else nil (good).
    public static func quality(of fix: Location, after last: Location?) -> Quality? {
        if let last {
            let elapsed = fix.timestamp - last.timestamp
            if elapsed > 0 {
                let speed = Geodesy.distanceMeters(last, fix) / (Double(elapsed) / 1000)
                if speed > implausibleSpeedMetersPerSecond { return .implausibleSpeed }
            }
        }
        if let accuracy = fix.accuracy, accuracy > lowAccuracyMeters { return .lowAccuracy }
        return nil
    }
}
