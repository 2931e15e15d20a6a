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

    func closeAll() { pool.closeAll() }
}
