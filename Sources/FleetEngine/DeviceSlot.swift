import BeekonDevice
import BeekonNet
import BeekonStore
import FleetDescription
import FleetRoutes
import Foundation

/// One emulated phone in the loop: its SDK state machine and the parts around it (what phone it
/// is, its world, its OS's switches, its network's faults, its store, what it recently did, and
/// the answers it waits for), each a value of its own.
package struct DeviceSlot {
    package let id: String
    package let group: Int
    package let seed: UInt64
    /// The phone: platform, model, OS release, SDK version, and its place in its group.
    let identity: PhoneIdentity
    package var device: Device?
    package var state = TrackingState.idle
    /// Where the phone is and what its OS's location provider makes of it.
    var world: PhoneWorld
    /// The OS's switches and the app's process.
    var os = PhoneOS()
    /// The network faults on its transfers.
    var link: LinkFaults
    /// Its store and how the store fares.
    package var storage: SlotStorage
    /// What it did recently, for the admin API.
    package var recent: RecentActivity
    /// The transfers it has out and the answer instant its events wait for.
    package var waiting = AwaitedAnswers()
    /// Deleted through the admin API: no longer listed, selected or driven (its store stays).
    var removed = false
    /// Stopped by the stages or `PATCH /api/v1/fleet`'s `devices` (it stands by, stopped, until
    /// they want it again).
    var standingBy = false

    /// The state as listed: `storeError` while its store fails, `dead` while the app's process
    /// is gone, otherwise the SDK's state (which runs on throughout a store failure).
    var listedState: DeviceState {
        if storage.problem != nil { return .storeError }
        return os.processAlive ? .sdk(state) : .dead
    }
}

/// What phone a device is: the platform, model, OS release and SDK version it reports, and its
/// place in its group.
struct PhoneIdentity {
    let indexInGroup: Int
    let platform: Platform
    let model: String
    let osVersion: OSVersion
    let sdkVersion: String
}

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

/// The OS's switches a user or fault flips, and the app's process.
struct PhoneOS {
    var permissionGranted = true
    var locationServicesOn = true
    var online = true
    var processAlive = true
    /// While the app is dead from a kill or reboot: what brings it back.
    var outage: ProcessOutage?
    /// Its app's processes so far: one more at each death, so an answer to a transfer an earlier
    /// process sent is known as unheard.
    var life = 0
}

/// The `latency` and `timeouts` faults on a device's transfers.
struct LinkFaults {
    /// `latency` fault: added to every transfer, ms.
    var extraLatencyMillis: Int64 = 0
    /// `timeouts` fault: the share of transfers that time out.
    var timeoutFraction = 0.0
    /// Draws for the `timeouts` fault.
    var rng: SplitMix64
}

/// A device's store and how it fares.
package struct SlotStorage {
    package let store: any DeviceStorage
    /// The store's failure while it lasts (the device is listed as `storeError`).
    var problem: StoreProblem?
    /// The latest instant it acted at: a commit that fails tells it then.
    var actedAt: Int64 = 0
    /// Its store's ledger as the fleet's accounts last counted it (nil before the store opened).
    var ledger: FixLedger?
}

/// What a device did recently, as the admin API shows it.
package struct RecentActivity {
    /// The most recent uploads, oldest first (as many as `DeviceRoster.recentCapacity`).
    package var uploads: RecentRing<UploadRecord>
    /// The most recent state changes, oldest first.
    var stateHistory: RecentRing<StateChange>
    /// Its SDK's recent `syncStatus` and `authChanges` values, oldest first.
    var streams: RecentRing<StreamRecord>
    /// The last token refresh's outcome (`200`, `timeout`).
    var lastRefreshOutcome: TransferOutcome?
    /// `getCurrentLocation` calls so far: the next one's request id, so a seeded run replays.
    var currentLocationCalls = 0
    /// The last answer to a `getCurrentLocation` call.
    var lastCurrentLocation: CurrentLocationRecord?

    /// Room for `capacity` of each.
    init(capacity: Int) {
        uploads = RecentRing(capacity: capacity)
        stateHistory = RecentRing(capacity: capacity)
        streams = RecentRing(capacity: capacity)
    }
}

/// The transfers a device has out, and the answer its events wait for.
package struct AwaitedAnswers {
    /// The transfers it has out, by number (see `FleetLoop.transfers`).
    var transfersOut: [Int] = []
    /// Modelled timing: the earliest answer instant of its transfers whose real answer is not in
    /// yet. Its own events wait there (`FleetLoop.runDue`); nil when nothing is awaited.
    package var answerHold: Int64?
}
