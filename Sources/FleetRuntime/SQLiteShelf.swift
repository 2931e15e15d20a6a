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

    /// The run is over. No store is checkpointed (two fsyncs each, for thousands of stores, was
    /// most of a large fleet's stop): each keeps its WAL, as every store the pool closed during
    /// the run already does, so the stores end the run as durable as they were during it (every
    /// commit survives the process; synchronous=NORMAL leaves what the OS has not written back to
    /// the machine), and the next open reads the WAL back.
    func closeAll() { pool.closeAll(checkpointing: false) }
}
