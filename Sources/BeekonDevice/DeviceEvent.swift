/// What can happen to a device: the OS and the world around it, answers to its actions, and
/// the SDK calls the app makes. The runtime feeds these to `Device.handle(_:at:)`.
public enum DeviceEvent: Sendable, Hashable {
    // The OS and the world.
    /// The OS provider delivered a fix (raw, before normalisation).
    case osFix(OSFix)
    /// The user granted (true) or revoked (false) location permission.
    case permissionChanged(granted: Bool)
    /// System-wide location services were switched on or off.
    case locationServicesChanged(on: Bool)
    /// A transient OS error, over after `recoveryMillis`.
    case osError(recoveryMillis: Int64)
    /// The app went to the background (true) or the foreground (false).
    case appStateChanged(background: Bool)
    /// The app's process died (killed, OS kill, crash). Nothing in memory survives.
    case processDied
    /// The process came back, with what its store holds.
    case processRelaunched(RelaunchCause, restored: PersistedDeviceState, pendingFixes: Int)
    /// The person carrying the phone stopped here (a dwell in the route): the motion sensors
    /// tell the OS at once, before three minutes of fixes would.
    case dwellStarted(latitude: Double, longitude: Double)
    /// The person walks on (the route's stop ended): the motion sensors no longer hold the
    /// stationary detector still; fixes beyond its region may show the departure.
    case dwellEnded
    /// The device's network went down or came back.
    case networkChanged(online: Bool)
    /// A timer the device armed is due.
    case timerFired(DeviceTimer)

    // Answers to actions.
    /// The store's answer to `loadBatch`.
    case batchLoaded(PendingBatch?)
    /// The transport's answer to `sendBatch`.
    case uploadFinished(batchID: UUIDv7, HTTPOutcome)
    /// The transport's answer to `sendRefresh`.
    case refreshFinished(HTTPOutcome)
    /// The store deleted this many fixes for `deleteLocations`.
    case locationsDeleted(count: Int)
    /// Retention deleted this many pending fixes with the write just made (seed 04: the
    /// 100 000-fix cap, or 7 days in local-only mode).
    case fixesExpired(count: Int)

    // The SDK's API.
    /// `configure(config)`.
    case configure(BeekonConfig)
    /// `start()`.
    case start
    /// `stop()`.
    case stop
    /// `shutdown()`: drops the in-memory state holder; the store stays.
    case shutdown
    /// `sync()`.
    case sync
    /// `setExtras(extras)`.
    case setExtras(StringMap)
    /// `addGeofences(geofences)`: all or nothing.
    case addGeofences([Geofence])
    /// `removeGeofences(ids)`.
    case removeGeofences([String])
    /// `getCurrentLocation(timeout, accuracy)`, answered with `answerCurrentLocation(requestID:)`.
    case getCurrentLocation(requestID: Int, timeoutMillis: Int64, accuracy: AccuracyRequest)
    /// `deleteLocations(before)`.
    case deleteLocations(before: Int64?)
}
