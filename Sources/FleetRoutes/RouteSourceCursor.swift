/// Counts lines and columns while a reader walks a file's bytes.
///
/// Columns count characters, not bytes, so that a position matches what an editor shows even
/// after a street name with accents.
struct RouteSourceCursor {
    package private(set) var line = 1
    package private(set) var column = 1

    package var position: RouteSourcePosition { RouteSourcePosition(line: line, column: column) }

    /// Moves past `byte`.
    package mutating func advance(over byte: UInt8) {
        if byte == UInt8(ascii: "\n") {
            line += 1
            column = 1
        } else if byte & 0xC0 != 0x80 {
            // UTF-8 continuation bytes belong to the character already counted.
            column += 1
        }
    }
}
