import BeekonDevice

/// The name and value type of one piece of persisted device state.
///
/// Values are stored JSON-encoded under `name`; the type parameter makes reads and writes of a
/// key agree on its type. Keys are defined as statics in constrained extensions below.
public struct DeviceStateKey<Value: Codable & Sendable>: Sendable, Hashable {
    /// The key's name in the store's state table.
    public let name: String

    /// A key named `name` holding a `Value`.
    public init(_ name: String) {
        self.name = name
    }
}

extension DeviceStateKey where Value == UUIDv7 {
    /// The device's install id: made once per install, never changes for that install (spec §1;
    /// seed 05: "stable per app install"). A reinstall is a new install, on a new store.
    public static var installID: Self { Self("install_id") }
}

extension DeviceStateKey where Value == Bool {
    /// Whether the app last asked to track (start() with no stop() since); survives process
    /// death, so a relaunched device resumes.
    public static var trackingIntent: Self { Self("tracking_intent") }
}

extension DeviceStateKey where Value == String {
    /// The current session id (UUIDv7 text), set by start() and cleared by stop().
    public static var sessionID: Self { Self("session_id") }
    /// The SDK version the installed app runs, set at its first start and by each update.
    public static var sdkVersion: Self { Self("sdk_version") }
}

extension DeviceStateKey where Value == StringMap {
    /// The app's extras, read at send time and sent with every batch (order kept).
    public static var extras: Self { Self("extras") }
}

extension DeviceStateKey where Value == BeekonConfig {
    /// The configuration last given with configure().
    public static var config: Self { Self("config") }
}

extension DeviceStateKey where Value == [Geofence] {
    /// The watched geofences, in the order they were added.
    public static var geofences: Self { Self("geofences") }
}

extension DeviceStateKey where Value == PersistedAuth {
    /// The live token set and the seed it grew from. Secrets: stored for the device, as the
    /// SDK keeps them in the Keychain or Keystore, and never logged.
    public static var auth: Self { Self("auth") }
}

extension DeviceStateKey where Value == SentBatch {
    /// The batch last given a `batch_id`, so a retry after process death carries it again.
    public static var sentBatch: Self { Self("sent_batch") }
}
