/// One upload: the schema-version-1 JSON envelope that a batch is POSTed as (seed 05).
///
/// `encoded()` writes the exact bytes the SDK sends: members in the documented order, integral
/// numbers without a decimal point, optionals omitted (never `null`), `extras` omitted when empty
/// in the app's order, and any row with a non-finite latitude or longitude dropped.
public struct UploadPayload: Sendable, Hashable {
    /// The envelope format; frozen at 1.
    public static let schemaVersion: Int64 = 1

    /// Fresh per POST; a retry carries the same one.
    public var batchID: UUIDv7
    /// The tracking run the batch belongs to; `""` for rows recorded with no session.
    public var sessionID: String
    /// When the device assembled the batch, Unix milliseconds.
    public var sentAt: Int64
    /// Constant per install.
    public var device: DeviceIdentity
    /// The app's string map from `setStringMap`, read at send time.
    public var extras: StringMap
    /// The batched fixes, oldest first.
    public var locations: [Location]
    /// The batched geofence crossings.
    public var geofenceEvents: [GeofenceEvent]

    /// A payload from its parts.
    public init(
        batchID: UUIDv7, sessionID: String, sentAt: Int64, device: DeviceIdentity,
        extras: StringMap = [:], locations: [Location],
        geofenceEvents: [GeofenceEvent] = []
    ) {
        self.batchID = batchID
        self.sessionID = sessionID
        self.sentAt = sentAt
        self.device = device
        self.extras = extras
        self.locations = locations
        self.geofenceEvents = geofenceEvents
    }

    /// The envelope as UTF-8 JSON bytes (before gzip). Same payload, same bytes.
    public func encoded() -> [UInt8] {
        // About 300 bytes a fix; reserving up front avoids regrowth on the hot path.
        var json = JSONWriter(capacity: 512 + locations.count * 320 + geofenceEvents.count * 160)
        json.beginObject()
        json.fixedKey("schema_version")
        json.integer(Self.schemaVersion)
        json.fixedKey("batch_id")
        json.uuid(batchID)
        json.fixedKey("session_id")
        json.string(sessionID)
        json.fixedKey("sent_at")
        json.timestamp(unixMillis: sentAt)
        json.fixedKey("device")
        writeDevice(into: &json)
        if !extras.isEmpty {
            json.fixedKey("extras")
            json.beginObject()
            for (key, value) in extras {
                json.key(key)
                json.string(value)
            }
            json.endObject()
        }
        json.fixedKey("locations")
        json.beginArray()
        for location in locations where location.latitude.isFinite && location.longitude.isFinite {
            Self.write(location, into: &json)
        }
        json.endArray()
        json.fixedKey("geofence_events")
        json.beginArray()
        for event in geofenceEvents {
            json.beginObject()
            json.fixedKey("id")
            json.uuid(event.id)
            json.fixedKey("geofence_id")
            json.string(event.geofenceID)
            json.fixedKey("type")
            json.string(event.type.rawValue)
            json.fixedKey("timestamp")
            json.timestamp(unixMillis: event.timestamp)
            json.endObject()
        }
        json.endArray()
        json.endObject()
        return json.bytes
    }

    private func writeDevice(into json: inout JSONWriter) {
        json.beginObject()
        if !device.installID.isEmpty {
            json.fixedKey("install_id")
            json.string(device.installID)
        }
        if let platform = device.platform {
            json.fixedKey("platform")
            json.string(platform.rawValue)
        }
        if !device.sdkVersion.isEmpty {
            json.fixedKey("sdk_version")
            json.string(device.sdkVersion)
        }
        if !device.model.isEmpty {
            json.fixedKey("model")
            json.string(device.model)
        }
        json.endObject()
    }

    private static func write(_ location: Location, into json: inout JSONWriter) {
        json.beginObject()
        json.fixedKey("id")
        json.uuid(location.id)
        json.fixedKey("timestamp")
        json.timestamp(unixMillis: location.timestamp)
        json.fixedKey("trigger")
        json.string(location.trigger.rawValue)
        json.fixedKey("motion")
        json.string(location.motion.rawValue)
        json.fixedKey("is_mock")
        json.bool(location.isMock)
        json.fixedKey("latitude")
        json.number(location.latitude)
        json.fixedKey("longitude")
        json.number(location.longitude)
        writeMeasure("accuracy", location.accuracy, into: &json)
        writeMeasure("speed", location.speed, into: &json)
        writeMeasure("bearing", location.bearing, into: &json)
        writeMeasure("altitude", location.altitude, into: &json)
        if let activity = location.activity {
            json.fixedKey("activity")
            json.string(activity.rawValue)
        }
        if let quality = location.quality {
            json.fixedKey("quality")
            json.string(quality.rawValue)
        }
        json.endObject()
    }

    /// An optional measure is omitted when absent, and also when it is not finite: such a value
    /// has no JSON form and a normalised `Location` never carries one.
    private static func writeMeasure(_ name: StaticString, _ value: Double?, into json: inout JSONWriter) {
        guard let value, value.isFinite else { return }
        json.fixedKey(name)
        json.number(value)
    }
}
