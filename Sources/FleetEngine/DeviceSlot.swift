import BeekonDevice
import BeekonNet
import BeekonStore
import FleetDescription
import FleetRoutes
import Foundation

/// One emulated phone in the loop: its SDK state machine, store, OS and world.
package struct DeviceSlot {
    package let id: String
    package let group: Int
    let indexInGroup: Int
    let platform: Platform
    let model: String
    /// Its OS release and the SDK version it reports.
    let osVersion: OSVersion
    let sdkVersion: String
    package let seed: UInt64
    package var device: Device?
    package let store: any DeviceStorage
    var provider: OSProvider
    let motion: RouteMotion
    /// When the phone sets off along its route (virtual ms).
    var setOffAt: Int64
    var permissionGranted = true
    var locationServicesOn = true
    var online = true
    var processAlive = true
    /// While the app is dead from a kill or reboot: what brings it back.
    var outage: ProcessOutage?
    var accuracy: AccuracyRequest?
    var wasMoving = true
    package var state = TrackingState.idle
    /// `latency` fault: added to every transfer, ms.
    var extraLatencyMillis: Int64 = 0
    /// `timeouts` fault: the share of transfers that time out.
    var timeoutFraction = 0.0
    /// Draws for the `timeouts` fault.
    var faultRNG: SplitMix64
    /// `gpsJump` while it lasts: the provider's fixes are moved this far from the truth.
    var gpsJump: GPSJump?
    /// `gpsJump`s so far: each draws its default bearing from a stream of its own (see `GPSJump`).
    var gpsJumps: UInt64 = 0
    /// `getCurrentLocation` calls so far: the next one's request id, so a seeded run replays.
    var currentLocationCalls = 0
    /// The last answer to a `getCurrentLocation` call.
    var lastCurrentLocation: CurrentLocationRecord?
    /// Deleted through the admin API: no longer listed, selected or driven (its store stays).
    var removed = false
    /// Stopped by the stages or `PATCH /api/v1/fleet`'s `devices` (it stands by, stopped, until
    /// they want it again).
    var standingBy = false
    /// The last admitted fix's position.
    var lastPosition: (latitude: Double, longitude: Double)?
    /// The last token refresh's outcome (`200`, `timeout`).
    var lastRefreshOutcome: TransferOutcome?
    /// The most recent uploads, oldest first (as many as `FleetLoop.recentCapacity`).
    package var uploads: RecentRing<UploadRecord>
    /// The most recent state changes, oldest first.
    var stateHistory: RecentRing<StateChange>
    /// Its SDK's recent `syncStatus` and `authChanges` values, oldest first.
    var streams: RecentRing<StreamRecord>
    /// The store's failure while it lasts (the device is listed as `storeError`).
    var storeProblem: StoreProblem?
    /// The latest instant it acted at: a commit that fails tells it then.
    var actedAt: Int64 = 0
    /// The transfers it has out, by number (see `FleetLoop.transfers`).
    var transfersOut: [Int] = []
    /// Its store's ledger as the fleet's accounts last counted it (nil before the store opened).
    var ledger: FixLedger?
    /// Its app's processes so far: one more at each death, so an answer to a transfer an earlier
    /// process sent is known as unheard.
    var life = 0
    /// Modelled timing: the earliest answer instant of its transfers whose real answer is not in
    /// yet. Its own events wait there (`FleetLoop.runDue`); nil when nothing is awaited.
    package var answerHold: Int64?

    /// The state as listed: `storeError` while its store fails, `dead` while the app's process
    /// is gone, otherwise the SDK's state (which runs on throughout a store failure).
    var listedState: DeviceState {
        if storeProblem != nil { return .storeError }
        return processAlive ? .sdk(state) : .dead
    }
}
