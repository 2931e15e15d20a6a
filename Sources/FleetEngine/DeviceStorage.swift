import BeekonDevice
import BeekonStore

/// What the fleet engine asks of a device's store: the SDK's own store calls. They are answered
/// at once, not as effects, because the device's next step depends on the answer (a loaded
/// batch, a delete count, an insert that failed and must be counted as lost). The engine is
/// given its stores by its driver (`StoreShelf`) and never opens a file itself.
package protocol DeviceStorage: AnyObject {
    /// What the store keeps once rows are uploaded (or, without sync, how long it keeps them).
    var retention: RetentionPolicy { get set }
    /// Stores the rows in their order in one commit (all or none), retention applied once at `now`.
    func insert(_ rows: [StoreRow], now: Int64) throws(StoreError)
    /// Whether `count` more rows, the oldest stamped `oldest`, would be stored at `now` with
    /// nothing pruned and no loss to write: false while the store's counts are not known.
    func storesWithoutRetention(count: Int, oldest: Int64, now: Int64) -> Bool
    func writeState(_ changes: [DeviceStateChange]) throws(StoreError)
    func readDeviceState() throws(StoreError) -> PersistedDeviceState
    func deleteLocations(before instant: Int64?) throws(StoreError) -> Int
    func nextBatch(limit: Int, resending: SentBatch?) throws(StoreError) -> PendingBatch?
    @discardableResult func acknowledge(
        _ batch: PendingBatch, told: (batchID: UUIDv7, at: Int64)?, heard: ToldBatch.Heard
    ) throws(StoreError) -> Int
    @discardableResult func drop(_ batch: PendingBatch, told: (batchID: UUIDv7, at: Int64)?) throws(StoreError) -> Int
    /// Records what the device was told of a batch that ended with its rows kept.
    func record(_ told: ToldBatch) throws(StoreError)
    func pendingCount() throws(StoreError) -> Int
    /// Makes the store ready before its device's first use, cheaply (a new one is written
    /// without opening it); an existing one is opened to read its counts.
    func prepare() throws(StoreError)
    /// Where the device's admitted fixes went, from memory; nil until the store first opened.
    var ledger: FixLedger? { get }
    /// A fix the device admitted was not stored (its insert failed): admitted and lost.
    func noteLostFix()
    /// Deletes what was held back and proves a write goes through.
    func checkWritable() throws(StoreError)
    func history(from: Int64, to: Int64) throws(StoreError) -> [Location]
    /// The newest fix or geofence event's timestamp (nil when empty).
    func newestTimestamp() throws(StoreError) -> Int64?
    /// Closes the file (its install was uninstalled: the file stays for `verify`); a later call
    /// would open it again.
    func close()
}
