import BeekonDevice
import SQLite

/// The rows of a reference receiver's database (`beekon-fleet receive`, or the in-process one):
/// its `locations` table's install and fix ids, read without writing.
public enum ReceiverRows {
    public static func read(path: String, _ row: (StoredRow) -> Void) throws(VerifyProblem) {
        var badID: (row: Int, id: String)?
        var hasTable = false
        do throws(SQLiteError) {
            let connection = try SQLiteConnection(path: path, readOnly: true)
            let table = try connection.prepare(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'locations'")
            hasTable = try table.step()
            guard hasTable else { return }
            let rows = try connection.prepare("SELECT install_id, id FROM locations")
            var number = 0
            while try rows.step() {
                number += 1
                let fix = rows.string(at: 1)
                guard let fixID = UUIDv7(fix) else {
                    badID = (number, fix)
                    break
                }
                let install = StoredRowReader.install(Array(rows.string(at: 0).utf8)[...])
                row(StoredRow(install: install, fixID: fixID, line: number))
            }
        } catch {
            throw VerifyProblem("\(path) cannot be read as a receiver's database: \(error)")
        }
        guard hasTable else {
            throw VerifyProblem("\(path) is not a reference receiver's database: it has no locations table")
        }
        if let badID { throw VerifyProblem("\(path): locations row \(badID.row): id \"\(badID.id)\" is not a UUID") }
    }
}
