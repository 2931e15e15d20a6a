import FleetTestSupport
import Foundation
import SQLite
import Testing

/// Databases hold tokens: a database file `SQLiteConnection` creates is its owner's only (0600),
/// whatever the umask, and SQLite's side files copy the database's mode.
@Suite("SQLite's file modes")
struct SQLiteFileModeTests {
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
            #expect(FileMode.of(path) == 0o600)
            for suffix in suffixes {
                #expect(FileMode.of(path + suffix) == 0o600, "\(suffix)")
            }
        }
    }

    @Test("an existing database keeps its mode: only a file SQLite would create is made 0600")
    func existingFileKeepsItsMode() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("shared.db")
            #expect(FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o640]))
            _ = try SQLiteConnection(path: path)
            #expect(FileMode.of(path) == 0o640)
        }
    }
}
