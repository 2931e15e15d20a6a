/// One upload that passed every check of seed 05's payload, ready to store.
struct IngestBatch: Sendable, Hashable {
    var batchID: String
    var sessionID: String
    /// `sent_at`, Unix milliseconds.
    var sentAt: Int64
    var installID: String
    var platform: String
    var sdkVersion: String
    /// Nil when the payload omits it.
    var model: String?
    /// `extras` as received, re-encoded as a JSON object (keys sorted); nil when omitted.
    var extrasJSON: String?
    var locations: [Location]
    var geofenceEvents: [GeofenceEvent]

    /// One `locations[]` entry.
    struct Location: Sendable, Hashable {
        var id: String
        /// Unix milliseconds.
        var timestamp: Int64
        var trigger: String
        var motion: String
        var isMock: Bool
        var latitude: Double
        var longitude: Double
        var accuracy: Double?
        var speed: Double?
        var bearing: Double?
        var altitude: Double?
        var activity: String?
        var quality: String?
    }

    /// One `geofence_events[]` entry.
    struct GeofenceEvent: Sendable, Hashable {
        var id: String
        var geofenceID: String
        var type: String
        /// Unix milliseconds.
        var timestamp: Int64
    }
}
