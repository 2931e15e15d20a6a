/// One upload the script answered, as it arrived: who sent it, what it carried, when, and the
/// script's answer.
///
/// The database keeps one row per batch and per id, so it cannot show a retry (the same
/// `batch_id` and `sent_at` again) or an upload the script refused without storing; the upload log
/// (`IngestReceiverConfiguration.keepsUploadLog`) keeps every one of them, in arrival order.
public struct LoggedUpload: Sendable, Hashable {
    /// `device.install_id`.
    public var installID: String
    /// `session_id`.
    public var sessionID: String
    /// `batch_id`; a retry of a batch carries the same one.
    public var batchID: String
    /// `sent_at`, Unix milliseconds: when the batch was assembled, so a retry carries its first.
    public var sentAt: Int64
    /// When it arrived, Unix milliseconds (the receiver's wall clock).
    public var receivedAt: Int64
    /// How many `locations` it carried.
    public var locationCount: Int
    /// How many `geofence_events` it carried.
    public var geofenceEventCount: Int
    /// The script's answer: nil for the normal one (store, then 200), otherwise the scripted
    /// outcome (`fail_first`, or the mix's draw).
    public var scripted: ScriptedOutcome?
    /// The client address it came from (a phone's Wi-Fi or cellular one, `--source-addresses`).
    public var clientAddress: String

    init(_ batch: IngestBatch, receivedAt: Int64, scripted: ScriptedOutcome?, clientAddress: String) {
        installID = batch.installID
        sessionID = batch.sessionID
        batchID = batch.batchID
        sentAt = batch.sentAt
        self.receivedAt = receivedAt
        locationCount = batch.locations.count
        geofenceEventCount = batch.geofenceEvents.count
        self.scripted = scripted
        self.clientAddress = clientAddress
    }
}
