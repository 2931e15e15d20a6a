internal import CSQLite

/// A SQLite result code that is not success, with SQLite's message for it.
///
/// Every call into SQLite that can fail is checked through `SQLiteConnection.check(_:)` or
/// `SQLiteConnection.error(_:)`, which make one of these; `DeviceStore` turns it into a
/// `StoreError` that names the file and the operation.
public struct SQLiteError: Error, RawRepresentable, Sendable, CustomStringConvertible {
    /// The extended result code (connections are opened with extended codes on).
    public let rawValue: Int32
    /// `sqlite3_errmsg` when a connection had one, otherwise `sqlite3_errstr` of the code.
    public let message: String
    /// The operating system's `errno` behind the failure (`sqlite3_system_errno`), 0 when
    /// unknown: it tells "too many open files" (EMFILE) from a missing folder, both of which
    /// SQLite reports as `SQLITE_CANTOPEN`.
    public let systemErrno: Int32

    /// The error for `rawValue`, with SQLite's text for that code.
    public init(rawValue: Int32) {
        self.init(rawValue, message: String(cString: sqlite3_errstr(rawValue)))
    }

    init(_ rawValue: Int32, message: String, systemErrno: Int32 = 0) {
        self.rawValue = rawValue
        self.message = message
        self.systemErrno = systemErrno
    }

    /// The primary result code: the low 8 bits, which name the family
    /// (`SQLITE_IOERR_WRITE` → `SQLITE_IOERR`).
    var primary: Int32 { rawValue & 0xFF }

    public var description: String { "\(message) (SQLite code \(rawValue))" }

    static let error = SQLiteError(rawValue: SQLITE_ERROR)
    static let permission = SQLiteError(rawValue: SQLITE_PERM)
    static let busy = SQLiteError(rawValue: SQLITE_BUSY)
    static let locked = SQLiteError(rawValue: SQLITE_LOCKED)
    static let noMemory = SQLiteError(rawValue: SQLITE_NOMEM)
    static let readOnly = SQLiteError(rawValue: SQLITE_READONLY)
    static let ioError = SQLiteError(rawValue: SQLITE_IOERR)
    static let corrupt = SQLiteError(rawValue: SQLITE_CORRUPT)
    static let full = SQLiteError(rawValue: SQLITE_FULL)
    static let cannotOpen = SQLiteError(rawValue: SQLITE_CANTOPEN)
    static let constraint = SQLiteError(rawValue: SQLITE_CONSTRAINT)
    static let misuse = SQLiteError(rawValue: SQLITE_MISUSE)
    static let auth = SQLiteError(rawValue: SQLITE_AUTH)
    static let notADatabase = SQLiteError(rawValue: SQLITE_NOTADB)

    /// Matches by primary code, so `case .ioError` catches every `SQLITE_IOERR_*`.
    static func ~= (pattern: SQLiteError, value: SQLiteError) -> Bool {
        pattern.primary == value.primary
    }
}
