internal import CSQLite

/// Owns one compiled statement (`sqlite3_stmt *`): prepared in `init`, finalised in `deinit`.
///
/// Holds its connection strongly, so the connection cannot close under a live statement.
/// Parameter and column indexes follow SQLite: parameters from 1, columns from 0.
public final class Statement {
    /// The connection this statement was compiled on.
    let connection: SQLiteConnection
    /// The `sqlite3_stmt *`; valid for the object's lifetime.
    let handle: OpaquePointer

    init(connection: SQLiteConnection, sql: String, persistent: Bool) throws(SQLiteError) {
        var statement: OpaquePointer?
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        let code = sqlite3_prepare_v3(connection.handle, sql, -1, flags, &statement, nil)
        try connection.check(code)
        guard let statement else {
            // SQL that holds only whitespace or comments compiles to nothing.
            throw SQLiteError(.misuse, message: "no SQL statement in \"\(sql)\"")
        }
        self.connection = connection
        handle = statement
    }

    deinit {
        sqlite3_finalize(handle)
    }

    // MARK: Binding

    /// Binds an integer to parameter `index`.
    public func bind(_ value: Int64, at index: Int32) throws(SQLiteError) {
        try connection.check(sqlite3_bind_int64(handle, index, value))
    }

    /// Binds an integer to parameter `index`.
    public func bind(_ value: Int, at index: Int32) throws(SQLiteError) {
        try bind(Int64(value), at: index)
    }

    /// Binds a real to parameter `index`.
    public func bind(_ value: Double, at index: Int32) throws(SQLiteError) {
        try connection.check(sqlite3_bind_double(handle, index, value))
    }

    /// Binds SQL NULL for nil: nil means "not measured", which is not 0.
    public func bind(_ value: Double?, at index: Int32) throws(SQLiteError) {
        if let value {
            try bind(value, at: index)
        } else {
            try bindNull(at: index)
        }
    }

    /// Binds 1 or 0 to parameter `index`.
    public func bind(_ value: Bool, at index: Int32) throws(SQLiteError) {
        try bind(Int64(value ? 1 : 0), at: index)
    }

    /// Binds text to parameter `index`.
    public func bind(_ value: String, at index: Int32) throws(SQLiteError) {
        // The byte count is passed explicitly, so text with an embedded NUL is kept whole.
        let byteCount = Int32(value.utf8.count)
        let code = value.withCString { text in
            beekon_sqlite3_bind_text_transient(handle, index, text, byteCount)
        }
        try connection.check(code)
    }

    /// Binds bytes (a BLOB) to parameter `index`; an empty array is a zero-length BLOB, not NULL.
    public func bind(_ value: [UInt8], at index: Int32) throws(SQLiteError) {
        let code = value.withUnsafeBytes { bytes in
            // A zero-length BLOB still needs a non-null pointer, or SQLite binds NULL.
            beekon_sqlite3_bind_blob_transient(
                handle, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(bytes.count))
        }
        try connection.check(code)
    }

    /// Binds text, or SQL NULL for nil, to parameter `index`.
    public func bind(_ value: String?, at index: Int32) throws(SQLiteError) {
        if let value {
            try bind(value, at: index)
        } else {
            try bindNull(at: index)
        }
    }

    /// Binds SQL NULL to parameter `index`.
    private func bindNull(at index: Int32) throws(SQLiteError) {
        try connection.check(sqlite3_bind_null(handle, index))
    }

    // MARK: Running

    /// Advances to the next row: true when a row is ready to read, false when done.
    public func step() throws(SQLiteError) -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.error(code)
        }
    }

    /// Steps a statement that returns no rows, then resets it.
    public func run() throws(SQLiteError) {
        defer { reset() }
        _ = try step()
    }

    /// Makes the statement ready to run again and ends its read, if any.
    ///
    /// A statement left mid-read holds a WAL read snapshot open, which stops checkpoints from
    /// resetting the WAL; every use ends with this. The step's error, if any, was already thrown.
    public func reset() {
        sqlite3_reset(handle)
    }

    // MARK: Columns

    /// The column as an integer.
    public func int64(at column: Int32) -> Int64 {
        sqlite3_column_int64(handle, column)
    }

    /// The column as an integer.
    public func int(at column: Int32) -> Int {
        Int(int64(at: column))
    }

    /// The column as a real.
    public func double(at column: Int32) -> Double {
        sqlite3_column_double(handle, column)
    }

    /// The column as a real; nil for NULL.
    public func optionalDouble(at column: Int32) -> Double? {
        isNull(at: column) ? nil : double(at: column)
    }

    /// Whether the column is non-zero.
    public func bool(at column: Int32) -> Bool {
        int64(at: column) != 0
    }

    /// The column's text; "" for NULL.
    public func string(at column: Int32) -> String {
        guard let text = sqlite3_column_text(handle, column) else { return "" }
        let byteCount = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: byteCount), as: UTF8.self)
    }

    /// The column's bytes (a BLOB; text as its UTF-8 bytes); empty for NULL.
    public func blob(at column: Int32) -> [UInt8] {
        // The pointer first, then its size (SQLite's order: the size is of what the pointer shows).
        guard let bytes = sqlite3_column_blob(handle, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(handle, column))))
    }

    /// The column's text; nil for NULL.
    public func optionalString(at column: Int32) -> String? {
        isNull(at: column) ? nil : string(at: column)
    }

    /// Whether the column is NULL.
    public func isNull(at column: Int32) -> Bool {
        sqlite3_column_type(handle, column) == SQLITE_NULL
    }
}
