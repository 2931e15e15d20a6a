import BeekonStore
import FleetEngine

extension DeviceStore: DeviceStorage {}

/// The real driver's stores: one SQLite file per device under the data folder
/// (`<data>/devices/<install_id>/beekon.db`), at most `pool.maxOpen` open at once.
final class SQLiteShelf: StoreShelf {
    let dataDirectory: String
    let pool: StorePool

    init(dataDirectory: String, maxOpen: Int) {
        self.dataDirectory = dataDirectory
        pool = StorePool(maxOpen: maxOpen)
    }

    func store(installID: String, syncEnabled: Bool) -> any DeviceStorage {
        DeviceStore(
            path: "\(dataDirectory)/devices/\(installID)/beekon.db", retention: .standard(syncEnabled: syncEnabled),
            pool: pool)
    }

    /// The run is over: every open store is checkpointed as it closes, so it is left one
    /// self-contained file (what a user copies or opens read-only after the run sees every row).
    /// Stores the pool closed during the run keep a WAL of at most 64 frames.
    func closeAll() { pool.closeAll() }
}
