import Foundation

/// What a start of `run` found at its data folder, so a start that fails (a port in use, a
/// route that does not load) removes what it created there and nothing that was there before.
///
/// Taken before anything is created. A start creates only the data folder (and any missing
/// folder above it) and the in-process receiver's database at its top; device stores are made
/// once the run has started. So: a folder that was missing goes whole, up to the highest folder
/// that was missing; in a folder that was there, only new entries go, never a `-wal`, `-shm` or
/// `-journal` beside a database that was there (it may hold that database's commits).
struct StartFootprint {
    /// The highest folder of the data folder's path that did not exist, if any.
    let createdRoot: String?
    /// The data folder.
    let folder: String
    /// Its entries before the start, when it existed.
    let entries: Set<String>

    init(dataDirectory: String) {
        folder = URL(fileURLWithPath: dataDirectory).standardizedFileURL.path
        var missing: String?
        var path = folder
        while !path.isEmpty, path != "/", !FileManager.default.fileExists(atPath: path) {
            missing = path
            path = (path as NSString).deletingLastPathComponent
        }
        createdRoot = missing
        entries = Set((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
    }

    /// Removes what was created since `init`; for a start that failed, once its receiver has stopped.
    func removeWhatThisStartCreated() {
        if let createdRoot {
            try? FileManager.default.removeItem(atPath: createdRoot)
            return
        }
        let now = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        for entry in now where !entries.contains(entry) && !isSideFileOfExisting(entry) {
            try? FileManager.default.removeItem(atPath: folder + "/" + entry)
        }
    }

    private func isSideFileOfExisting(_ entry: String) -> Bool {
        ["-wal", "-shm", "-journal"].contains { suffix in
            entry.hasSuffix(suffix) && entries.contains(String(entry.dropLast(suffix.count)))
        }
    }
}
