import BeekonDevice

/// One upload's end, as the device's recent history keeps it.
public struct UploadRecord: Sendable, Hashable {
    /// When the answer arrived, virtual Unix ms.
    public var at: Int64
    /// The batch's id (16 bytes, not its 36 characters: a fleet keeps millions of these).
    public var batchID: UUIDv7
    /// Fixes in the batch.
    public var fixes: Int
    /// What the device heard: a status, a network failure, or offline.
    public var outcome: TransferOutcome
    /// Virtual ms from send to the outcome the device heard.
    public var latencyMillis: Double
    /// Wall ms the server took to answer; nil when it had not answered by the time the device
    /// heard the outcome (its timeout, or `offline`).
    public var serverMillis: Double?
}
