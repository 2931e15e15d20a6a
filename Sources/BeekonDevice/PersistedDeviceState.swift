/// What a device's store holds of its state; all absent for a new install.
public struct PersistedDeviceState: Sendable, Hashable {
    public var installID: UUIDv7?
    public var trackingIntent = false
    public var sessionID: String?
    public var config: BeekonConfig?
    public var extras: StringMap = [:]
    public var geofences: [Geofence] = []
    public var auth: PersistedAuth?
    /// The batch last given a `batch_id`.
    public var sentBatch: SentBatch?
    /// The SDK version the installed app runs (nil: not recorded yet).
    public var sdkVersion: String?

    /// A state from its parts; the defaults are a new install's.
    public init(
        installID: UUIDv7? = nil, trackingIntent: Bool = false, sessionID: String? = nil,
        config: BeekonConfig? = nil, extras: StringMap = [:], geofences: [Geofence] = [],
        auth: PersistedAuth? = nil, sentBatch: SentBatch? = nil, sdkVersion: String? = nil
    ) {
        self.installID = installID
        self.trackingIntent = trackingIntent
        self.sessionID = sessionID
        self.config = config
        self.extras = extras
        self.geofences = geofences
        self.auth = auth
        self.sentBatch = sentBatch
        self.sdkVersion = sdkVersion
    }
}
