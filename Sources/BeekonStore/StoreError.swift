import Foundation
internal import SQLite

/// A device store operation that failed: which file, which operation, and what went wrong.
///
/// The SDK reports storage failures as one error type; `kind` says what the caller can do about
/// it (and is the cause the fleet counts failures and lost rows by), `code` keeps SQLite's exact
/// result code for the log.
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, in terms of what can be done about it: the one vocabulary of store-failure
    /// causes (the raw value labels counts in the admin API, `/metrics` and the progress line).
    ///
    /// Read from SQLite's own result code (see `init(code:systemErrno:)`), or set by the store
    /// for failures that are not SQLite's (a newer schema, an undecodable state value).
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The disk (or the file system's quota, or the file's page limit) is full: SQLITE_FULL.
        case full
        /// The process or the system ran out of file descriptors (SQLITE_CANTOPEN with errno
        /// EMFILE or ENFILE): raise `ulimit -n`.
        case tooManyOpenFiles
        /// The operating system reported an I/O error: SQLITE_IOERR.
        case ioError
        /// The file or its folder is read-only, or access is denied: SQLITE_READONLY,
        /// SQLITE_PERM, SQLITE_AUTH.
        case readOnly
        /// The database is damaged, or holds a row this build cannot read: SQLITE_CORRUPT.
        case corrupt
        /// Another connection holds a lock on the file: SQLITE_BUSY, SQLITE_LOCKED.
        case busy
        /// The file or its folder could not be created or opened (path, permissions):
        /// SQLITE_CANTOPEN for any other reason.
        case cannotOpen
        /// The file exists but is not a SQLite database: SQLITE_NOTADB.
        case notADatabase
        /// The file was written by a newer build, with a schema this build does not know.
        case newerSchema
        /// A device-state value could not be encoded or decoded as its key's type.
        case invalidValue
        /// Any other SQLite failure.
        case other

        /// The cause of a SQLite failure: its extended result `code` and, for a file that could
        /// not be opened, the `systemErrno` behind it.
        public init(code: Int32, systemErrno: Int32) {
            // SQLiteError's patterns match by primary code: `.ioError` is every SQLITE_IOERR_*.
            switch SQLiteError(rawValue: code) {
            case .full: self = .full
            case .cannotOpen:
                self = systemErrno == EMFILE || systemErrno == ENFILE ? .tooManyOpenFiles : .cannotOpen
            case .ioError: self = .ioError
            case .readOnly, .permission, .auth: self = .readOnly
            case .corrupt: self = .corrupt
            case .busy, .locked: self = .busy
            case .notADatabase: self = .notADatabase
            default: self = .other
            }
        }
    }

    /// What went wrong.
    public var kind: Kind
    /// SQLite's extended result code, or 0 when the failure did not come from SQLite.
    public var code: Int32
    /// The database file.
    public var path: String
    /// What the store was doing, e.g. "insert fix".
    public var operation: String
    /// SQLite's message, or ours when the failure is not SQLite's.
    public var message: String

    /// An error from its parts.
    public init(kind: Kind, code: Int32 = 0, path: String, operation: String, message: String) {
        self.kind = kind
        self.code = code
        self.path = path
        self.operation = operation
        self.message = message
    }

    init(_ error: SQLiteError, path: String, operation: String) {
        self.init(
            kind: Kind(code: error.rawValue, systemErrno: error.systemErrno), code: error.rawValue, path: path,
            operation: operation, message: error.message)
    }

    /// "device store at PATH: OPERATION failed: MESSAGE", then what to do about it.
    public var description: String {
        var text = "device store at \(path): \(operation) failed: \(message)"
        if code != 0 {
            text += " (SQLite code \(code))"
        }
        switch kind {
        case .cannotOpen:
            text += "; check that the folder exists or can be created and is writable"
        case .notADatabase:
            text += "; the file is not a Beekon store: move it away or give the device another path"
        case .corrupt:
            text += "; the file is damaged: move it away to start the device afresh"
        case .newerSchema:
            text += "; use the build that wrote it, or move the file away"
        case .full:
            text += "; free some disk space"
        case .tooManyOpenFiles:
            text += "; raise the open-file limit (ulimit -n), or run fewer devices"
        case .readOnly:
            text += "; make the file and its folder writable"
        case .busy:
            text += "; another store or process is writing the file"
        case .ioError, .invalidValue, .other:
            break
        }
        return text
    }
}
