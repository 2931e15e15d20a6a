import BeekonDevice
import BeekonStore
import Foundation
import SQLite
import Testing

/// Device stores hold tokens: what the fleet creates is its owner's only (folders 0700, files
/// 0600), whatever the umask, and SQLite's side files copy the database's mode.
@Suite("Private files")
struct PrivateFileTests {
    /// The permission bits of `path` (stat), or nil when it does not exist.
    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o777
    }

    @Test("a new store's folders are 0700 and its database and -wal are 0600")
    func storeFilesArePrivate() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("devices/one/beekon.db")
            let store = try DeviceStore(path: path, retention: .syncing)
            var maker = FixMaker()
            try store.insert(maker.fix(at: 1_000), sessionID: "s", now: 2_000)
            #expect(Self.mode(directory.file("devices")) == 0o700)
            #expect(Self.mode(directory.file("devices/one")) == 0o700)
            #expect(Self.mode(path) == 0o600)
            #expect(Self.mode(path + "-wal") == 0o600)
            store.close()
        }
    }

    @Test(
        "SQLite's side files copy the database file's 0600",
        arguments: [
            ("PRAGMA journal_mode = DELETE; BEGIN; CREATE TABLE t(x); INSERT INTO t VALUES (1);", ["-journal"]),
            ("PRAGMA journal_mode = WAL; CREATE TABLE t(x); INSERT INTO t VALUES (1);", ["-wal", "-shm"]),
        ])
    func sideFilesArePrivate(sql: String, suffixes: [String]) throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("side.db")
            let connection = try SQLiteConnection(path: path)
            try connection.execute(sql)
            #expect(Self.mode(path) == 0o600)
            for suffix in suffixes {
                #expect(Self.mode(path + suffix) == 0o600, "\(suffix)")
            }
        }
    }

    @Test("an existing database keeps its mode: only a file SQLite would create is made 0600")
    func existingFileKeepsItsMode() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("shared.db")
            #expect(FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o640]))
            _ = try SQLiteConnection(path: path)
            #expect(Self.mode(path) == 0o640)
        }
    }

    @Test("createFolder makes every missing folder 0700 and leaves an existing one as it is")
    func createFolderModes() throws {
        try withTemporaryDirectory { directory in
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
            try PrivateFile.createFolder(atPath: directory.file("a/b/c"))
            #expect(Self.mode(directory.path) == 0o755)
            for folder in ["a", "a/b", "a/b/c"] {
                #expect(Self.mode(directory.file(folder)) == 0o700, "\(folder)")
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
            #expect(Self.mode(path) == 0o600)
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "{}")
            #expect(!FileManager.default.fileExists(atPath: path + ".tmp"))
            #expect(throws: (any Error).self) {
                try PrivateFile.write(Data(), toFile: directory.file("missing/x.json"))
            }
        }
    }
}
