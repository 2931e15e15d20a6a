/// What a device asks its runtime to do. The device never does I/O itself: it returns these,
/// in order, and the runtime carries them out (store, transport, timers, streams).
public enum DeviceAction: Sendable, Hashable {
    // Storage: committed before anything else sees the row (seed 04's non-crossing invariant).
    /// Store an admitted fix.
    case persistFix(Location, sessionID: String)
    /// Store a geofence crossing.
    case persistGeofenceEvent(GeofenceEvent, sessionID: String)
    /// Store these pieces of the device's persisted state, in one transaction.
    case persistState([DeviceStateChange])
    /// Delete stored fixes at or before an instant (all when nil).
    case deleteLocations(before: Int64?)

    // Streams the app would observe.
    /// A new tracking state.
    case emitState(TrackingState)
    /// A fix on the live stream.
    case emitLocation(Location)
    /// A geofence crossing on its stream.
    case emitGeofenceEvent(GeofenceEvent)
    /// Upload progress.
    case emitSyncStatus(SyncStatus)
    /// A change of the auth state.
    case emitAuthChange(AuthChange)

    // Sync.
    /// Ask the store for the next batch; the answer comes back as `batchLoaded`. With
    /// `resending`, what is left of that batch comes first, whatever it holds (the same batch
    /// again, under its id); then the session of the oldest pending row, up to `limit` fixes.
    case loadBatch(limit: Int, resending: SentBatch?)
    /// POST a batch (the runtime encodes and gzips the payload).
    case sendBatch(UploadRequest)
    /// POST a token refresh.
    case sendRefresh(RefreshRequest)
    /// The server has the batch: delete exactly its rows.
    case acknowledgeBatch(PendingBatch, batchID: UUIDv7)
    /// The server rejected the batch for good: delete exactly its rows.
    case dropBatch(PendingBatch, batchID: UUIDv7)

    // The OS and time.
    /// Start (with an accuracy) or stop (nil) the OS location provider.
    case requestLocationUpdates(AccuracyRequest?)
    /// Call back with `timerFired` at this instant (replacing any same timer).
    case armTimer(DeviceTimer, at: Int64)
    /// Forget a timer.
    case cancelTimer(DeviceTimer)
    /// Answer a `getCurrentLocation` call.
    case answerCurrentLocation(requestID: Int, CurrentLocationAnswer)
    /// An SDK call was refused; the error says why.
    case refuseCall(String, reason: String)
}
