internal import CSQLite

/// A SQLite result code that is not success, with SQLite's message for it.
///
/// Every call into SQLite that can fail is checked through `SQLiteConnection.check(_:)` or
/// `SQLiteConnection.error(_:)`, which make one of these; its users add what they were doing
/// (`DeviceStore` turns it into a `StoreError` that names the file and the operation).
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

    /// The error `code` (one of the constants below) with the caller's own `message`, for a
    /// failure it finds in what SQLite returned (a row it cannot read, a setting SQLite refused).
    public init(_ code: SQLiteError, message: String) {
        self.init(code.rawValue, message: message)
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

    /// `SQLITE_ERROR`: a generic failure.
    public static let error = SQLiteError(rawValue: SQLITE_ERROR)
    /// `SQLITE_PERM`: access denied.
    public static let permission = SQLiteError(rawValue: SQLITE_PERM)
    /// `SQLITE_BUSY`: another connection holds a lock on the file.
    public static let busy = SQLiteError(rawValue: SQLITE_BUSY)
    /// `SQLITE_LOCKED`: a conflict within the same connection, or with another on a shared cache.
    public static let locked = SQLiteError(rawValue: SQLITE_LOCKED)
    /// `SQLITE_READONLY`: the file or its folder cannot be written.
    public static let readOnly = SQLiteError(rawValue: SQLITE_READONLY)
    /// `SQLITE_IOERR`: the operating system reported an I/O error.
    public static let ioError = SQLiteError(rawValue: SQLITE_IOERR)
    /// `SQLITE_CORRUPT`: the database is damaged.
    public static let corrupt = SQLiteError(rawValue: SQLITE_CORRUPT)
    /// `SQLITE_FULL`: the disk, a quota or the page limit is full.
    public static let full = SQLiteError(rawValue: SQLITE_FULL)
    /// `SQLITE_CANTOPEN`: the file could not be opened (see `systemErrno`).
    public static let cannotOpen = SQLiteError(rawValue: SQLITE_CANTOPEN)
    /// `SQLITE_AUTH`: refused by an authoriser.
    public static let auth = SQLiteError(rawValue: SQLITE_AUTH)
    /// `SQLITE_NOTADB`: the file is not a SQLite database.
    public static let notADatabase = SQLiteError(rawValue: SQLITE_NOTADB)
    static let misuse = SQLiteError(rawValue: SQLITE_MISUSE)

    /// Matches by primary code, so `case .ioError` catches every `SQLITE_IOERR_*`.
    public static func ~= (pattern: SQLiteError, value: SQLiteError) -> Bool {
        pattern.primary == value.primary
    }
}
