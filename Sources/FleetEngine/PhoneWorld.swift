import BeekonDevice
import FleetRoutes

/// A phone's world: its route and where it is along it, and its OS's location provider with
/// the accuracy the SDK asked of it and the faults on its fixes.
struct PhoneWorld {
    var provider: OSProvider
    let motion: RouteMotion
    /// When the phone sets off along its route (virtual ms).
    var setOffAt: Int64
    var accuracy: AccuracyRequest?
    var wasMoving = true
    /// The last admitted fix's position.
    var lastPosition: (latitude: Double, longitude: Double)?
    /// `gpsJump` while it lasts: the provider's fixes are moved this far from the truth.
    var gpsJump: GPSJump?
    /// `gpsJump`s so far: each draws its default bearing from a stream of its own (see `GPSJump`).
    var gpsJumps: UInt64 = 0
}
