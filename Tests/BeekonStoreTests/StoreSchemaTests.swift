import FleetTestSupport
import Foundation
import SQLite
import Testing

@testable import BeekonStore

@Suite("The store's schema")
struct StoreSchemaTests {
    /// Every table's columns (name, type, not null, default, primary key) and every schema object
    /// by type and name: what a file's structure is, whatever the text that made it.
    static func structure(_ connection: SQLiteConnection) throws -> [String] {
        var lines: [String] = []
        let objects = try connection.prepare("SELECT type, name FROM sqlite_master ORDER BY type, name")
        var tables: [String] = []
        while try objects.step() {
            let (type, name) = (objects.string(at: 0), objects.string(at: 1))
            lines.append("\(type) \(name)")
            if type == "table" { tables.append(name) }
        }
        for table in tables {
            let columns = try connection.prepare("PRAGMA table_info(\(table))")
            while try columns.step() {
                lines.append(
                    "\(table).\(columns.string(at: 1)) \(columns.string(at: 2)) notnull=\(columns.int(at: 3)) "
                        + "default=\(columns.isNull(at: 4) ? "-" : columns.string(at: 4)) pk=\(columns.int(at: 5))")
            }
        }
        return lines
    }

    @Test("a new file made in one step has the structure the migrations give an old one, at the same version")
    func currentMatchesTheMigrations() throws {
        try withTemporaryDirectory { directory in
            let fresh = directory.file("fresh.db")
            _ = try DeviceStore(path: fresh)
            let migrated = try SQLiteConnection(path: directory.file("migrated.db"))
            for (index, migration) in StoreSchema.migrations.enumerated() {
                try migrated.execute(migration)
                try migrated.execute("PRAGMA user_version = \(index + 1)")
            }
            let made = try SQLiteConnection(path: fresh)
            #expect(try Self.structure(made) == Self.structure(migrated))
            let version = try made.prepare("PRAGMA user_version")
            #expect(try version.step() && version.int(at: 0) == StoreSchema.currentVersion)
        }
    }
}
