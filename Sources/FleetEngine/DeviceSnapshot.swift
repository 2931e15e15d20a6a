import BeekonDevice
import BeekonStore

/// One device as the admin API shows it: never its tokens.
public struct DeviceSnapshot: Sendable {
    /// `group-0001`.
    public var id: String
    /// Its group's name.
    public var group: String
    /// `ios` or `android`.
    public var platform: Platform
    /// The phone model; empty when the group names none.
    public var model: String
    /// The OS release (`18.7`, `15`).
    public var osVersion: String
    /// The SDK version it reports.
    public var sdkVersion: String
    /// The install id (UUIDv7 text).
    public var installID: String
    /// The SDK's state, `dead`, or `storeError` (see `storeError`).
    public var state: DeviceState
    /// Whether the app's process is alive.
    public var alive: Bool
    /// Whether it has been spawned yet.
    public var spawned: Bool
    /// Deleted through the admin API.
    public var deleted: Bool
    /// Location permission.
    public var permissionGranted: Bool
    /// System location services.
    public var locationServicesOn: Bool
    /// Network.
    public var online: Bool
    /// The local address its connections leave from (`--source-addresses`); nil: the system's.
    public var sourceAddress: String? = nil
    /// Fixes stored and not yet acknowledged.
    public var pending: Int
    /// The last upload's outcome (`200`, `timeout`, `offline`).
    public var lastOutcome: TransferOutcome?
    /// When the last upload ended, virtual Unix ms.
    public var lastUploadAt: Int64?
    /// The last admitted fix's latitude.
    public var latitude: Double?
    /// The last admitted fix's longitude.
    public var longitude: Double?
    /// The SDK configuration in force (secrets included: redact before showing it).
    public var config: BeekonConfig?
    /// Where its sync engine is.
    public var sync: SyncView
    /// Its auth session, without its tokens.
    public var auth: AuthView
    /// Recent state changes, oldest first.
    public var stateHistory: [StateChange]
    /// Recent uploads, oldest first.
    public var uploads: [UploadRecord]
    /// The recent values of its SDK's `syncStatus` and `authChanges` streams, oldest first.
    public var streams: [StreamRecord]
    /// Why its store fails, while it is in `storeError`.
    public var storeError: DeviceStoreError?
    /// Its store's ledger over its whole life (nil before the store was first opened).
    public var fixes: FixLedger? = nil
    /// The world its phone is in: network, flapping, Doze, bucket, battery manager, clock.
    public var world = DeviceWorld.untouched
    /// Its `getCurrentLocation` calls so far, and the last answer (nil before the first).
    public var currentLocationCalls = 0
    public var currentLocation: CurrentLocationRecord? = nil
}
