/// One piece of the state a device persists with its store, so that it survives process death.
public enum DeviceStateChange: Sendable, Hashable {
    /// Made once per install, never changed.
    case installID(UUIDv7)
    /// Whether the app wants tracking (set by `start()`, cleared by `stop()`).
    case trackingIntent(Bool)
    /// The current session; nil clears it.
    case sessionID(String?)
    /// The configuration last given.
    case config(BeekonConfig)
    /// The app's extras.
    case extras(StringMap)
    /// The watched geofences.
    case geofences([Geofence])
    /// The live token set and the seed it came from (secrets: never logged); nil clears them.
    case auth(PersistedAuth?)
    /// The batch last given a `batch_id`, written before it is first sent.
    case sentBatch(SentBatch)
    /// The SDK version the installed app runs: the fleet's record of the install (written at
    /// its first start and at each app update), so a resumed run finds an updated app updated.
    case sdkVersion(String)
}
