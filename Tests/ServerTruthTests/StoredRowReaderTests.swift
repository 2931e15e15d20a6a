import BeekonDevice
import Foundation
import Testing

@testable import ServerTruth

/// The server's rows as database clients write them: CSV with or without a header (either
/// column order), quoted, CRLF, blank lines; NDJSON; and every line that is not a row named.
@Suite("Stored rows: CSV and NDJSON from a database client")
struct StoredRowReaderTests {
    static let install = "0190a000-0000-7000-8000-000000000001"
    static let fix = "0190a000-0000-7000-8000-0000000000f1"

    static func rows(_ text: String) throws -> [StoredRow] {
        let pipe = Pipe()
        pipe.fileHandleForWriting.write(Data(text.utf8))
        try pipe.fileHandleForWriting.close()
        var reader = StoredRowReader(source: "rows")
        var rows: [StoredRow] = []
        try reader.read(pipe.fileHandleForReading) { rows.append($0) }
        return rows
    }

    @Test(
        "each form gives the one row",
        arguments: [
            "\(install),\(fix)\n", "install_id,fix_id\n\(install),\(fix)\n", "fix_id,install_id\n\(fix),\(install)\n",
            "\"\(install)\",\"\(fix)\"\r\n", "\n  \n\(install),\(fix)",
            "{\"install_id\":\"\(install)\",\"id\":\"\(fix)\"}\n",
            "{\"fix_id\":\"\(fix)\",\"install_id\":\"\(install)\",\"batch\":1}\n", "\u{FEFF}\(install),\(fix)\n",
        ])
    func forms(_ text: String) throws {
        let rows = try Self.rows(text)
        #expect(rows.count == 1)
        #expect(rows.first?.fixID == UUIDv7(Self.fix) && rows.first?.install == .id(UUIDv7(Self.install)!))
    }

    @Test("an empty install id is not checked; one that is not a UUID is kept as text")
    func installs() throws {
        let rows = try Self.rows(",\(Self.fix)\nphone-7,\(Self.fix)\n")
        #expect(rows.map(\.install) == [.empty, .other("phone-7")] && rows.map(\.line) == [1, 2])
    }

    @Test(
        "a line that is not a row is refused with its line and what was expected",
        arguments: [
            ("\(install),\(fix)\n\(install)\n", "rows line 2: 1 fields"),
            ("\(install),\(fix),x\n", "rows line 1: 3 fields"),
            ("install_id,fix_id\n\(install),12\n", "rows line 2: fix_id \"12\" is not a UUID"),
            ("{\"install_id\":\"a\"}\n", "rows line 1: no string \"fix_id\""),
            ("{nope\n", "rows line 1: not a JSON object"),
        ])
    func refused(_ text: String, _ message: String) throws {
        do {
            _ = try Self.rows(text)
            Issue.record("accepted \(text)")
        } catch let problem as StoredRowReader.Problem {
            #expect(problem.description.hasPrefix(message), "\(problem)")
        }
    }
}
