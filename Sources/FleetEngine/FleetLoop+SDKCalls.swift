import BeekonDevice
import FleetDescription
import Foundation

/// A `gpsJump` while it lasts: every fix the OS provider makes is moved `meters` along
/// `bearing`, so the SDK's own check (`Gate.quality`, 300 m/s) sees a teleport.
struct GPSJump: Sendable, Hashable {
    var meters: Double
    /// Degrees clockwise from north.
    var bearing: Double
    /// When the provider reports the truth again, virtual ms.
    var until: Int64

    /// `fix` moved `meters` along `bearing` on the SDK's sphere (`Geodesy`), so the gate
    /// measures the jump as exactly that far.
    func move(_ fix: inout OSFix) {
        let distance = meters / Geodesy.earthRadiusMeters
        let theta = bearing * .pi / 180
        let phi1 = fix.latitude * .pi / 180
        let sinPhi2 = sin(phi1) * cos(distance) + cos(phi1) * sin(distance) * cos(theta)
        let phi2 = asin(min(1, max(-1, sinPhi2)))
        let deltaLambda = atan2(sin(theta) * sin(distance) * cos(phi1), cos(distance) - sin(phi1) * sinPhi2)
        fix.latitude = phi2 * 180 / .pi
        // Back into [-180, 180): the sum lies within ±360°.
        fix.longitude = (fix.longitude + deltaLambda * 180 / .pi + 540).truncatingRemainder(dividingBy: 360) - 180
    }
}

/// The last answer a device's `getCurrentLocation` got, for its detail.
public struct CurrentLocationRecord: Sendable, Hashable {
    /// The call's request id (the device's calls numbered from 1).
    public var requestID: Int
    /// When the answer came, virtual Unix ms.
    public var at: Int64
    public var answer: CurrentLocationAnswer
}

/// How the fleet's `getCurrentLocation` calls were answered.
public struct CurrentLocationCounts: Sendable, Hashable, Codable {
    /// With the next OS fix.
    public var fix = 0
    /// No fix within the timeout (the SDK's null).
    public var timedOut = 0
    /// A precondition failed (permission revoked, location services off): the SDK's error.
    public var unavailable = 0

    public init() {}
}

extension FleetLoop {
    /// Starts a `gpsJump` on the device's provider until `until`; without a bearing, each jump
    /// draws one from a stream of its own derived from the device's seed, so no existing stream
    /// moves and a seeded run replays.
    mutating func startJump(_ slot: Int, meters: Double, bearing: Double?, until: Int64) {
        var draws = SplitMix64(seed: slots[slot].seed).derived(0x6A5D_0000 &+ slots[slot].world.gpsJumps)
        slots[slot].world.gpsJumps += 1
        let degrees = bearing ?? Double.random(in: 0..<360, using: &draws)
        slots[slot].world.gpsJump = GPSJump(meters: meters, bearing: degrees, until: until)
    }

    /// A `getCurrentLocation` answer: kept as the device's last, counted, and logged at debug.
    mutating func currentLocationAnswered(_ requestID: Int, _ answer: CurrentLocationAnswer, slot: Int, at time: Int64)
    {
        slots[slot].recent.lastCurrentLocation = CurrentLocationRecord(requestID: requestID, at: time, answer: answer)
        noteChange(slot)
        let said: String
        switch answer {
        case .fix(let fix):
            metrics.currentLocation.fix += 1
            said = "a fix at \(fix.latitude), \(fix.longitude)" + (fix.accuracy.map { " (±\($0) m)" } ?? "")
        case .timedOut:
            metrics.currentLocation.timedOut += 1
            said = "timed out"
        case .unavailable(let reason):
            metrics.currentLocation.unavailable += 1
            said = "unavailable (\(reason.rawValue))"
        }
        effects.append(
            .log(FleetLogLine(.debug, "device \(slots[slot].id): getCurrentLocation #\(requestID) answered: \(said)")))
    }
}
