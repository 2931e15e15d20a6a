/// Splits CSV bytes into records of cells, keeping line and column of each cell.
struct RouteCSVReader {
    private let bytes: [UInt8]
    private let file: String
    private var index = 0
    private var cursor = RouteSourceCursor()

    package init(bytes: [UInt8], file: String) {
        self.bytes = bytes
        self.file = file
        // A UTF-8 byte-order mark, as spreadsheet exports write, is not part of the header.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
    }

    /// Where the reader is now.
    package var position: RouteSourcePosition { cursor.position }

    /// The next non-blank record, or nil at the end of the input.
    mutating func nextRecord() throws(RouteError) -> [RouteCSVCell]? {
        while index < bytes.count {
            let record = try readRecord()
            let isBlank =
                record.count == 1 && record[0].text.trimmingSpaces.isEmpty
                && !record[0].wasQuoted
            if !isBlank { return record.map { RouteCSVCell(text: $0.text, position: $0.position) } }
        }
        return nil
    }

    private mutating func readRecord() throws(RouteError) -> [(
        text: String, position: RouteSourcePosition, wasQuoted: Bool
    )] {
        var record: [(text: String, position: RouteSourcePosition, wasQuoted: Bool)] = []
        while true {
            var field: [UInt8] = []
            var start = cursor.position
            var wasQuoted = false
            // Spaces before an opening quote are tolerated, as many writers pad after commas.
            var lookahead = index
            while lookahead < bytes.count, bytes[lookahead] == UInt8(ascii: " ") { lookahead += 1 }
            if lookahead < bytes.count, bytes[lookahead] == UInt8(ascii: "\"") {
                while index < lookahead { step() }
                let quoteAt = cursor.position
                step()
                start = cursor.position
                wasQuoted = true
                while true {
                    guard index < bytes.count else {
                        throw RouteError(
                            file: file, at: quoteAt, problem: "a quoted field is never closed",
                            expected: "a closing \" before the end of the file")
                    }
                    let byte = bytes[index]
                    step()
                    if byte == UInt8(ascii: "\"") {
                        if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                            field.append(byte)
                            step()
                        } else {
                            break
                        }
                    } else {
                        field.append(byte)
                    }
                }
                // Only spaces may follow a closing quote before the separator.
                while index < bytes.count, bytes[index] == UInt8(ascii: " ") { step() }
                if index < bytes.count, !isSeparatorOrEnd(bytes[index]) {
                    throw RouteError(
                        file: file, at: cursor.position,
                        problem: "unexpected text after a quoted field",
                        expected: "a comma or the end of the line")
                }
            } else {
                while index < bytes.count, !isSeparatorOrEnd(bytes[index]) {
                    field.append(bytes[index])
                    step()
                }
            }
            record.append(
                (String(decoding: field, as: UTF8.self), start, wasQuoted))
            guard index < bytes.count else { return record }
            let separator = bytes[index]
            step()
            if separator == UInt8(ascii: ",") { continue }
            if separator == UInt8(ascii: "\r"), index < bytes.count,
                bytes[index] == UInt8(ascii: "\n")
            {
                step()
            }
            return record
        }
    }

    private func isSeparatorOrEnd(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ",") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
    }

    private mutating func step() {
        cursor.advance(over: bytes[index])
        index += 1
    }
}
