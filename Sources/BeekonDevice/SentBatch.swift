/// The batch a device last gave a `batch_id`, persisted before its first sending so that every
/// attempt of it, after a process death too, is exactly that batch: the same rows, the same id,
/// the same `sent_at` (seed 05: "a retry carries the same batch_id"; spec §1: "A retry of a
/// batch reuses its `batch_id` and its rows' ids").
///
/// It names its rows by store row number and id: the store hands out exactly those rows again
/// (those still pending), whatever arrived since, so a server that dedupes on `batch_id` never
/// stores a fix twice. The id guards against a row number reused once its row was deleted.
public struct SentBatch: Sendable, Hashable, Codable {
    /// One stored row of the batch.
    public struct Row: Sendable, Hashable, Codable {
        /// The store's row number.
        public var seq: Int64
        /// The fix's or geofence event's id.
        public var id: UUIDv7

        public init(seq: Int64, id: UUIDv7) {
            self.seq = seq
            self.id = id
        }

        /// `[seq, "id"]`: a 1,000-fix batch is written once per batch, so it is kept small.
        public init(from decoder: any Decoder) throws {
            var row = try decoder.unkeyedContainer()
            seq = try row.decode(Int64.self)
            id = try row.decode(UUIDv7.self)
        }

        public func encode(to encoder: any Encoder) throws {
            var row = encoder.unkeyedContainer()
            try row.encode(seq)
            try row.encode(id)
        }
    }

    /// The id every attempt of the batch carries.
    public var batchID: UUIDv7
    /// The session every row belongs to.
    public var sessionID: String
    /// When the device assembled the batch, Unix ms: every attempt's `sent_at` (seed 05:
    /// "When the device assembled the batch").
    public var assembledAt: Int64
    /// The fixes, in payload order.
    public var fixes: [Row]
    /// The geofence events, in payload order.
    public var events: [Row]

    /// The record for `batch`, assembled at `assembledAt` and sent as `batchID`.
    public init(batchID: UUIDv7, batch: PendingBatch, assembledAt: Int64) {
        self.batchID = batchID
        sessionID = batch.sessionID
        self.assembledAt = assembledAt
        fixes = zip(batch.fixRows, batch.locations).map { Row(seq: $0, id: $1.id) }
        events = zip(batch.eventRows, batch.geofenceEvents).map { Row(seq: $0, id: $1.id) }
    }

    /// Whether `batch` is this batch again: every row it holds is one of this batch's, of the
    /// same session. (The store hands out what is left of it, rows deleted since left out.)
    public func holds(_ batch: PendingBatch) -> Bool {
        guard batch.sessionID == sessionID, !batch.isEmpty else { return false }
        let fixIDs = Set(fixes.map(\.id))
        let eventIDs = Set(events.map(\.id))
        return batch.locations.allSatisfy { fixIDs.contains($0.id) }
            && batch.geofenceEvents.allSatisfy { eventIDs.contains($0.id) }
    }

    private enum CodingKeys: String, CodingKey {
        case batchID, sessionID, assembledAt, fixes, events
    }

    /// Reads records written before rows were kept (`batchID` and a digest): they name no row,
    /// so they match no batch and the next one gets a new id, as it did then.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        batchID = try container.decode(UUIDv7.self, forKey: .batchID)
        sessionID = try container.decodeIfPresent(String.self, forKey: .sessionID) ?? ""
        assembledAt = try container.decodeIfPresent(Int64.self, forKey: .assembledAt) ?? 0
        fixes = try container.decodeIfPresent([Row].self, forKey: .fixes) ?? []
        events = try container.decodeIfPresent([Row].self, forKey: .events) ?? []
    }
}
