import BeekonDevice
import BeekonStore
import FleetTestSupport
import Foundation
import Testing

/// Device stores hold tokens: what the fleet creates is its owner's only (folders 0700, files
/// 0600), whatever the umask (SQLite's own files: `SQLiteFileModeTests`).
@Suite("Private files")
struct PrivateFileTests {
    @Test("a new store's folders are 0700 and its database and -wal are 0600")
    func storeFilesArePrivate() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("devices/one/beekon.db")
            let store = try DeviceStore(path: path, retention: .syncing)
            var maker = FixMaker()
            try store.insert(maker.fix(at: 1_000), sessionID: "s", now: 2_000)
            #expect(FileMode.of(directory.file("devices")) == 0o700)
            #expect(FileMode.of(directory.file("devices/one")) == 0o700)
            #expect(FileMode.of(path) == 0o600)
            #expect(FileMode.of(path + "-wal") == 0o600)
            store.close()
        }
    }

    @Test("createFolder makes every missing folder 0700 and leaves an existing one as it is")
    func createFolderModes() throws {
        try withTemporaryDirectory { directory in
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
            try PrivateFile.createFolder(atPath: directory.file("a/b/c"))
            #expect(FileMode.of(directory.path) == 0o755)
            for folder in ["a", "a/b", "a/b/c"] {
                #expect(FileMode.of(directory.file(folder)) == 0o700, "\(folder)")
            }
            try PrivateFile.createFolder(atPath: directory.file("a/b/c"))
        }
    }

    @Test("write replaces a file with a 0600 one and leaves no temporary file")
    func writeIsPrivateAndAtomic() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("devices.json")
            #expect(
                FileManager.default.createFile(
                    atPath: path, contents: Data("old".utf8), attributes: [.posixPermissions: 0o644]))
            try PrivateFile.write(Data("{}".utf8), toFile: path)
            #expect(FileMode.of(path) == 0o600)
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "{}")
            #expect(!FileManager.default.fileExists(atPath: path + ".tmp"))
            #expect(throws: (any Error).self) {
                try PrivateFile.write(Data(), toFile: directory.file("missing/x.json"))
            }
        }
    }
}
