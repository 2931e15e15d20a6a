import BeekonDevice
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
