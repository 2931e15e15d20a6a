import Foundation

/// The bytes of a new, empty store as SQLite makes it: the current schema and version, 1 KiB
/// pages, WAL mode in its header, checkpointed (no `-wal`).
///
/// A fleet makes a store per device, 100,000 of them at a time: written from these bytes, a
/// new store costs a folder, a file and one write, where making it through SQLite costs an open,
/// the pragmas, the schema's transaction and a close (see `DeviceStore.prepare()`). Made once
/// per process, by SQLite itself, so it is whatever this build's SQLite would have made; nil
/// when that fails (a store is then made by SQLite, as before).
enum StoreTemplate {
    static let bytes: [UInt8]? = make()

    private static func make() -> [UInt8]? {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("beekon-store-template-\(getpid())-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/beekon.db"
        do {
            let store = try DeviceStore(path: path)
            store.close()  // checkpoints: the whole store is in the one file
        } catch {
            return nil
        }
        guard let data = FileManager.default.contents(atPath: path),
            !FileManager.default.fileExists(atPath: path + "-wal")
        else { return nil }
        return [UInt8](data)
    }
}
