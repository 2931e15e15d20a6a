import BeekonDevice
internal import SQLite

/// What one device store says of every fix id its device ever sent or still holds: the batches
/// it was told the end of (`told`) and the fixes still pending. Read-only: no row changes, no
/// migration, no checkpoint, so `verify` reads a run's stores as it left them (SQLite may leave
/// an empty `-wal` and a `-shm` beside a file whose run removed them).
public struct StoreRecords: Sendable {
    /// Fixes still stored: not yet acknowledged, rejected, expired or deleted.
    public var pending: [UUIDv7]
    /// Every batch the device was told the end of, in the order recorded.
    public var told: [ToldBatch]
    /// The file predates told records (schema before v4): its acknowledged fixes are unknown.
    public var predatesTold: Bool

    public init(pending: [UUIDv7], told: [ToldBatch], predatesTold: Bool = false) {
        self.pending = pending
        self.told = told
        self.predatesTold = predatesTold
    }

    /// Reads the store at `path`.
    public static func read(path: String) throws(StoreError) -> StoreRecords {
        let connection: SQLiteConnection
        do throws(SQLiteError) {
            connection = try SQLiteConnection(path: path, readOnly: true)
        } catch {
            throw StoreError(error, path: path, operation: "open the store")
        }
        let schema: Int64
        do throws(SQLiteError) {
            let version = try connection.prepare("PRAGMA user_version")
            schema = try version.step() ? version.int64(at: 0) : 0
        } catch {
            throw StoreError(error, path: path, operation: "read schema version")
        }
        guard schema <= Int64(StoreSchema.currentVersion) else {
            throw StoreError(
                kind: .newerSchema, path: path, operation: "read schema version",
                message: "schema version \(schema) is newer than this build's \(StoreSchema.currentVersion)")
        }
        do throws(SQLiteError) {
            var records = StoreRecords(pending: [], told: [], predatesTold: schema < 4)
            let fixes = try connection.prepare("SELECT seq, id FROM locations ORDER BY seq")
            while try fixes.step() {
                guard let id = UUIDv7(fixes.string(at: 1)) else {
                    throw DeviceStore.unreadableRow("locations", seq: fixes.int64(at: 0), "id is not a UUID")
                }
                records.pending.append(id)
            }
            guard !records.predatesTold else { return records }
            let told = try connection.prepare(StoreQuery.readTold.sql)
            while try told.step() {
                guard let batch = ToldBatch(row: told) else {
                    throw DeviceStore.unreadableRow("told", seq: Int64(records.told.count + 1), "not a told batch")
                }
                records.told.append(batch)
            }
            return records
        } catch {
            throw StoreError(error, path: path, operation: "read what the device was told")
        }
    }
}
