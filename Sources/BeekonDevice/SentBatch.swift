/// The batch a device last gave a `batch_id`, persisted so that a retry after process death
/// carries the same id (seed 05: "a retry carries the same batch_id"; servers dedupe on it).
///
/// It names its rows by a digest of their ids, not their store row numbers: row numbers are
/// reused once rows are deleted, and a new batch that got the old id would be dropped by a
/// deduplicating server.
public struct SentBatch: Sendable, Hashable, Codable {
    /// The id every attempt of the batch carries.
    public var batchID: UUIDv7
    /// FNV-1a (64-bit) of the batch's session, fix ids and geofence-event ids, in order, as 16
    /// hex digits.
    public var rows: String

    /// The record for `batch` sent as `batchID`.
    public init(batchID: UUIDv7, batch: PendingBatch) {
        self.batchID = batchID
        rows = Self.digest(of: batch)
    }

    /// Whether `batch` holds exactly the rows this record was made for.
    public func holds(_ batch: PendingBatch) -> Bool {
        rows == Self.digest(of: batch)
    }

    static func digest(of batch: PendingBatch) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ text: String) {
            for byte in text.utf8 {
                hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
            }
            // A separator, so that ids cannot run into each other.
            hash = (hash ^ 0xff) &* 0x100_0000_01b3
        }
        mix(batch.sessionID)
        for fix in batch.locations { mix(fix.id.text) }
        mix("")
        for event in batch.geofenceEvents { mix(event.id.text) }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
