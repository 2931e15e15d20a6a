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
