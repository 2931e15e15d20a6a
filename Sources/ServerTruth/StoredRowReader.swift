import BeekonDevice
import Foundation

/// Reads the server's rows as a user's database client writes them: one `install_id,fix_id` a
/// line (CSV; a header naming the columns may come first and may give them the other way round;
/// double quotes around a field are taken off), or one JSON object a line (NDJSON, with
/// `install_id` and `fix_id` or `id`). Streams: a chunk of bytes at a time, never the whole input.
public struct StoredRowReader {
    /// A line that is not a row, with where it is and what was expected.
    public struct Problem: Error, CustomStringConvertible {
        public var source: String
        public var line: Int
        public var problem: String
        public var description: String { "\(source) line \(line): \(problem)" }
    }

    let source: String
    private var line = 0
    /// With a header `fix_id,install_id`: the fix id comes first.
    private var fixFirst = false

    /// `source` names the input in problems (a path, or "standard input").
    public init(source: String) {
        self.source = source
    }

    /// Reads every row from `handle` until its end, handing each to `row`.
    public mutating func read(_ handle: FileHandle, _ row: (StoredRow) -> Void) throws {
        var pending: [UInt8] = []
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            pending.append(contentsOf: chunk)
            var start = 0
            while let end = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
                if let parsed = try self.row(pending[start..<end]) { row(parsed) }
                start = end + 1
            }
            pending.removeFirst(start)
        }
        if !pending.isEmpty, let parsed = try self.row(pending[...]) { row(parsed) }
    }

    /// One line (without its newline): a row, nil for a blank line or the header.
    mutating func row(_ bytes: ArraySlice<UInt8>) throws(Problem) -> StoredRow? {
        line += 1
        var text = bytes
        while let last = text.last, last == UInt8(ascii: "\r") || last == UInt8(ascii: " ") { text.removeLast() }
        while let first = text.first, first == UInt8(ascii: " ") || first == 0xEF || first == 0xBB || first == 0xBF {
            text.removeFirst()  // spaces, and a UTF-8 byte-order mark
        }
        if text.isEmpty { return nil }
        if text.first == UInt8(ascii: "{") { return try json(text) }
        // One comma, found in place: splitting into an array cost two allocations a row.
        guard let comma = text.firstIndex(of: UInt8(ascii: ",")),
            !text[text.index(after: comma)...].contains(UInt8(ascii: ","))
        else {
            let count = text.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false).count
            throw fail("\(count) fields (\(Self.shown(text))); expected 2: install_id,fix_id")
        }
        let first = Self.unquoted(text[..<comma])
        let second = Self.unquoted(text[text.index(after: comma)...])
        if line == 1, let order = Self.header([first, second]) {
            fixFirst = order
            return nil
        }
        let (installBytes, fixBytes) = fixFirst ? (second, first) : (first, second)
        guard let fixID = UUIDv7(utf8: fixBytes) else {
            throw fail(
                "fix_id \(Self.shown(fixBytes)) is not a UUID (8-4-4-4-12 hex digits); "
                    + "expected install_id,fix_id, or a header naming the columns")
        }
        return StoredRow(install: Self.install(installBytes), fixID: fixID, line: line)
    }

    private func json(_ text: ArraySlice<UInt8>) throws(Problem) -> StoredRow {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text)) as? [String: Any] else {
            throw fail("not a JSON object (\(Self.shown(text)))")
        }
        guard let fixText = (object["fix_id"] ?? object["id"]) as? String else {
            throw fail("no string \"fix_id\" (or \"id\"); expected {\"install_id\": …, \"fix_id\": …}")
        }
        guard let fixID = UUIDv7(fixText) else { throw fail("fix_id \"\(fixText)\" is not a UUID") }
        let install = object["install_id"] as? String ?? ""
        return StoredRow(install: Self.install(Array(install.utf8)[...]), fixID: fixID, line: line)
    }

    private func fail(_ problem: String) -> Problem {
        Problem(source: source, line: line, problem: problem)
    }

    /// A header line's column order: false for install_id,fix_id, true for fix_id,install_id;
    /// nil when the line is not a header.
    static func header(_ fields: [ArraySlice<UInt8>]) -> Bool? {
        let names = fields.map { String(decoding: $0, as: UTF8.self).lowercased() }
        let install = ["install_id", "installid", "install"]
        let fix = ["fix_id", "fixid", "id", "location_id"]
        if install.contains(names[0]), fix.contains(names[1]) { return false }
        if fix.contains(names[0]), install.contains(names[1]) { return true }
        return nil
    }

    static func install(_ bytes: ArraySlice<UInt8>) -> StoredRow.Install {
        if bytes.isEmpty { return .empty }
        if let id = UUIDv7(utf8: bytes) { return .id(id) }
        return .other(String(decoding: bytes, as: UTF8.self))
    }

    static func unquoted(_ field: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var field = field
        while field.first == UInt8(ascii: " ") { field.removeFirst() }
        while field.last == UInt8(ascii: " ") { field.removeLast() }
        if field.count >= 2, field.first == UInt8(ascii: "\""), field.last == UInt8(ascii: "\"") {
            return field.dropFirst().dropLast()
        }
        return field
    }

    /// A field or line as shown in a problem: quoted, at most 60 characters.
    static func shown(_ bytes: ArraySlice<UInt8>) -> String {
        // Control characters (a binary file given as rows) shown as U+FFFD, not written raw.
        let text = String(
            String(decoding: bytes.prefix(60), as: UTF8.self).unicodeScalars.map {
                $0.properties.generalCategory == .control ? "\u{FFFD}" : Character($0)
            })
        return "\"\(text)\(bytes.count > 60 ? "…" : "")\""
    }
}
