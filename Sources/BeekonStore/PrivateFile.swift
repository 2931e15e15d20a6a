import Foundation

/// Makes the fleet's folders and files readable by their owner only.
///
/// Device stores hold tokens, so the data folder and every folder under it are 0700, and every
/// file the fleet writes there (stores, the receiver's database, `devices.json`) is 0600. SQLite
/// gives a `-wal`, `-shm` or `-journal` file the permissions of its database file, so creating
/// the database 0600 (`SQLiteConnection` does, in the `SQLite` module) covers those too.
public enum PrivateFile {
    /// The mode of every file the fleet creates.
    public static let fileMode: mode_t = 0o600
    /// The mode of every folder the fleet creates.
    public static let folderMode: mode_t = 0o700

    /// Creates `path` and any missing folder above it, each 0700; an existing folder is left as it is.
    public static func createFolder(atPath path: String) throws {
        var missing: [String] = []
        var folder = URL(fileURLWithPath: path).standardizedFileURL.path
        var isFolder: ObjCBool = false
        while !folder.isEmpty, folder != "/", !FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) {
            missing.append(folder)
            folder = (folder as NSString).deletingLastPathComponent
        }
        for folder in missing.reversed() where mkdir(folder, folderMode) != 0 && errno != EEXIST {
            throw CocoaError(
                .fileWriteUnknown,
                userInfo: [NSFilePathErrorKey: folder, NSLocalizedDescriptionKey: String(cString: strerror(errno))])
        }
    }

    /// Writes `data` to `path` with mode 0600, through a temporary file renamed over it, so a
    /// crash never leaves half a file.
    public static func write(_ data: Data, toFile path: String) throws {
        let temporary = path + ".tmp"
        unlink(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, fileMode)
        guard descriptor >= 0 else { throw failure(path: temporary) }
        let written = data.withUnsafeBytes { writeAll($0, to: descriptor) }
        let closed = close(descriptor) == 0
        guard written, closed, rename(temporary, path) == 0 else {
            let error = failure(path: path)
            unlink(temporary)
            throw error
        }
    }

    /// Writes all of `bytes` to `descriptor`, through short writes and interruptions; false
    /// (errno set) when a write fails.
    static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = Foundation.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if count < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += count
        }
        return true
    }

    private static func failure(path: String) -> CocoaError {
        CocoaError(
            .fileWriteUnknown,
            userInfo: [
                NSFilePathErrorKey: path, NSLocalizedDescriptionKey: "\(path): \(String(cString: strerror(errno)))",
            ])
    }
}
