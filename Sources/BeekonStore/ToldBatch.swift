import BeekonDevice
internal import SQLite

/// What a device was told of one batch it uploaded: its id, how the answer ended for the device,
/// when (virtual Unix ms), and the batch's fix ids in payload order, whether or not its store
/// still held each. Kept in the store (`told`) so the fleet can check the server's store against
/// it; written in the transaction that deletes the batch's rows, so neither is kept without the
/// other.
public struct ToldBatch: Sendable, Hashable {
    /// How the upload ended for the device.
    public enum Heard: Int64, Sendable, CaseIterable {
        /// A 2xx the device heard: its rows were deleted.
        case acknowledged = 1
        /// 400 or 422: the device dropped its rows for good.
        case rejected = 2
        /// A 2xx that came after the device gave up on it: its rows are still pending and go
        /// again in a later batch.
        case unheardAcknowledgement = 3
        /// No 2xx heard (a failure status, a timeout, a network failure): its rows are still
        /// pending; the server may hold them.
        case unacknowledged = 4
        /// A 2xx from a captive portal, not the server: the device deleted its rows, which the
        /// server never had (a phone loses them so).
        case portalAcknowledged = 5
    }

    public var batchID: UUIDv7
    public var heard: Heard
    public var at: Int64
    public var fixIDs: [UUIDv7]

    public init(batchID: UUIDv7, heard: Heard, at: Int64, fixIDs: [UUIDv7]) {
        self.batchID = batchID
        self.heard = heard
        self.at = at
        self.fixIDs = fixIDs
    }

    /// A row of `StoreQuery.readTold`; nil when it is not one this build wrote.
    init?(row: Statement) {
        let batchBytes = row.blob(at: 0)
        guard batchBytes.count == 16, let batchID = Self.unpacked(batchBytes)?.first,
            let heard = Heard(rawValue: row.int64(at: 1)), let fixIDs = Self.unpacked(row.blob(at: 3))
        else { return nil }
        self.init(batchID: batchID, heard: heard, at: row.int64(at: 2), fixIDs: fixIDs)
    }

    /// `ids` as 16 bytes each, the UUID's own order (most significant byte first).
    static func packed(_ ids: [UUIDv7]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(ids.count * 16)
        for id in ids {
            for half in [id.high, id.low] {
                for shift in stride(from: 56, through: 0, by: -8) {
                    bytes.append(UInt8(truncatingIfNeeded: half >> shift))
                }
            }
        }
        return bytes
    }

    /// The ids `packed` wrote; nil when `bytes` is not a whole number of them.
    static func unpacked(_ bytes: [UInt8]) -> [UUIDv7]? {
        guard bytes.count % 16 == 0 else { return nil }
        return stride(from: 0, to: bytes.count, by: 16).map { start in
            func half(_ at: Int) -> UInt64 { bytes[at..<at + 8].reduce(0) { $0 << 8 | UInt64($1) } }
            return UUIDv7(high: half(start), low: half(start + 8))
        }
    }
}
