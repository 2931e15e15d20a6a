internal import CSQLite
import Foundation

/// Owns one `sqlite3` handle: opened in `init`, closed in `deinit`.
///
/// Not thread-safe, by design: it is opened with `SQLITE_OPEN_NOMUTEX` because each user confines
/// its connection to one thread (a device store to the scheduler's, the receiver's to its writer),
/// so SQLite's own per-call mutex would be pure cost.
public final class SQLiteConnection {
    /// The `sqlite3 *`; valid for the object's lifetime.
    let handle: OpaquePointer
    /// With `FileLocking.heldWhileOpen`: the descriptor whose lock keeps other processes out.
    private let lockDescriptor: Int32

    /// How the file is kept from other connections.
    public enum FileLocking: Sendable {
        /// SQLite's own POSIX locks, taken and released around each transaction: any number of
        /// connections, in any processes, may share the file.
        case perTransaction
        /// One connection owns the file from open to close (`PRAGMA locking_mode = EXCLUSIVE`,
        /// which the caller sets before its first read): the whole time it is open, it holds a
        /// lock on the bytes SQLite locks, so another process's SQLite finds the database locked
        /// (`SQLITE_BUSY`), and it opens the file through SQLite's `unix-none` VFS.
        ///
        /// Why: SQLite's default VFS keeps every file the process has open, with its POSIX locks,
        /// in one list that each open walks twice. With thousands of device stores open, that
        /// walk was a quarter of a 10,000-device fleet's CPU (`docs/benchmarks.md`, issue #17).
        /// `unix-none` keeps no list; the lock here, an open-file-description lock, is what a
        /// classic POSIX lock cannot be without that list: one that closing another descriptor
        /// of the same file does not drop. Not for a file this process opens twice at once.
        case heldWhileOpen
    }

    /// SQLite's lock bytes (`PENDING_BYTE` 0x40000000, then the reserved byte and the 510
    /// shared bytes), as `os.h` defines them: a reader from another process must take a read
    /// lock on the first before it reads anything.
    static let lockRange = (start: Int64(0x4000_0000), length: Int64(512))

    /// Opens (creating if missing, 0600) the database file at `path` for reading and writing; with
    /// `readOnly`, an existing file for reading only (a missing one is SQLITE_CANTOPEN).
    public init(path: String, locking: FileLocking = .perTransaction, readOnly: Bool = false) throws(SQLiteError) {
        let initialised = SQLiteLibrary.initialisation
        guard initialised == SQLITE_OK else { throw SQLiteError(rawValue: initialised) }
        var vfs: String?
        switch locking {
        case .perTransaction:
            if !readOnly { Self.createPrivately(path) }
            lockDescriptor = -1
        case .heldWhileOpen:
            // The descriptor that holds the lock also creates the file 0600 (see createPrivately).
            let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else {
                let number = errno
                throw SQLiteError(
                    SQLITE_CANTOPEN, message: "unable to open database file: \(String(cString: strerror(number)))",
                    systemErrno: number)
            }
            guard Self.lock(descriptor) else {
                let number = errno
                close(descriptor)
                if number == EAGAIN || number == EACCES {
                    throw SQLiteError(
                        SQLITE_BUSY, message: "database is locked (another process has it open)", systemErrno: number)
                }
                throw SQLiteError(
                    SQLITE_IOERR, message: "cannot lock the database: \(String(cString: strerror(number)))",
                    systemErrno: number)
            }
            lockDescriptor = descriptor
            vfs = "unix-none"
        }
        var db: OpaquePointer?
        let access = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        let flags = access | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let code = sqlite3_open_v2(path, &db, flags, vfs)
        guard code == SQLITE_OK, let db else {
            // On failure SQLite usually still allocates a handle, which holds the message.
            let message = db.map { String(cString: sqlite3_errmsg($0)) }
            let systemErrno = db.map { sqlite3_system_errno($0) } ?? 0
            sqlite3_close_v2(db)
            if lockDescriptor >= 0 { close(lockDescriptor) }
            throw SQLiteError(
                code, message: message ?? String(cString: sqlite3_errstr(code)), systemErrno: systemErrno)
        }
        handle = db
        // Off process-wide already; repeated per connection in case SQLite was initialised by
        // someone else first (see SQLiteLibrary).
        _ = beekon_sqlite3_db_config_lookaside(db, nil, 0, 0)
    }

    /// Takes the lock of `FileLocking.heldWhileOpen` on `descriptor`'s file; false (errno set)
    /// when it cannot. A conflict is tried again for up to 100 ms: a child process another thread
    /// is starting holds a copy of every descriptor until its `exec` closes them, the lock of a
    /// store just closed included.
    private static func lock(_ descriptor: Int32) -> Bool {
        for attempt in 0..<20 {
            if beekon_ofd_write_lock(descriptor, lockRange.start, lockRange.length) == 0 { return true }
            guard errno == EAGAIN || errno == EACCES, attempt < 19 else { return false }
            usleep(5_000)
        }
        return false
    }

    /// Creates `path` as an empty owner-only (0600) file unless it exists: databases hold tokens,
    /// SQLite would create the file 0644 & ~umask, and its -wal, -shm and -journal files copy the
    /// database file's mode. A path SQLite treats specially (`:memory:`, empty, a `file:` URI) is
    /// left alone, and a failure is left for SQLite to report.
    private static func createPrivately(_ path: String) {
        guard !path.isEmpty, path != ":memory:", !path.hasPrefix("file:") else { return }
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        if descriptor >= 0 { close(descriptor) }
    }

    deinit {
        // close_v2 rather than close: it cannot fail with SQLITE_BUSY, and every Statement holds
        // this object alive, so no statement is left unfinalised by the time this runs.
        sqlite3_close_v2(handle)
        // After the close, so the last checkpoint is written before another process may read.
        if lockDescriptor >= 0 { close(lockDescriptor) }
    }

    /// Throws the connection's error for `code` unless it is `SQLITE_OK`.
    @inline(__always)
    func check(_ code: Int32) throws(SQLiteError) {
        guard code == SQLITE_OK else { throw error(code) }
    }

    /// The error for a failed call's `code`, with the connection's current message and `errno`.
    func error(_ code: Int32) -> SQLiteError {
        SQLiteError(
            code, message: String(cString: sqlite3_errmsg(handle)), systemErrno: sqlite3_system_errno(handle))
    }

    /// Runs one or more SQL statements that return no rows the caller needs.
    public func execute(_ sql: String) throws(SQLiteError) {
        try check(sqlite3_exec(handle, sql, nil, nil, nil))
    }

    /// Compiles `sql`; `persistent` for statements kept for the connection's lifetime.
    public func prepare(_ sql: String, persistent: Bool = false) throws(SQLiteError) -> Statement {
        try Statement(connection: self, sql: sql, persistent: persistent)
    }

    /// Rows changed by the most recent INSERT, UPDATE or DELETE.
    public var changes: Int { Int(sqlite3_changes64(handle)) }

    /// Whether no transaction is open.
    public var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

    /// Frees as much of this connection's heap as SQLite can (unused cache pages).
    public func releaseMemory() {
        _ = sqlite3_db_release_memory(handle)
    }

    /// Makes closing leave the WAL as it is: no checkpoint, no fsync, `-wal` kept. The next open
    /// rebuilds the WAL index from the `-wal` file.
    public func skipCheckpointOnClose() {
        _ = beekon_sqlite3_db_config_flag(handle, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nil)
    }
}
