internal import CSQLite

/// A device store operation that failed: which file, which operation, and what went wrong.
///
/// The SDK reports storage failures as one error type; `kind` says what the caller can do about
/// it, `code` keeps SQLite's exact result code for the log.
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, in terms of what can be done about it.
    public enum Kind: String, Sendable, Hashable {
        /// The file or its folder could not be created or opened (path, permissions).
        case cannotOpen
        /// The file exists but is not a SQLite database.
        case notADatabase
        /// The database is damaged, or holds a row this build cannot read.
        case corrupt
        /// The file was written by a newer build, with a schema this build does not know.
        case newerSchema
        /// The disk (or the file system's quota) is full.
        case diskFull
        /// The operating system reported an I/O error.
        case ioError
        /// Another connection holds a lock on the file.
        case busy
        /// The file or its folder is read-only.
        case readOnly
        /// A device-state value could not be encoded or decoded as its key's type.
        case invalidValue
        /// Any other SQLite failure.
        case sqlite
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
        let kind: Kind =
            switch error {
            case .cannotOpen: .cannotOpen
            case .notADatabase: .notADatabase
            case .corrupt: .corrupt
            case .full: .diskFull
            case .ioError: .ioError
            case .busy, .locked: .busy
            case .readOnly, .permission, .auth: .readOnly
            default: .sqlite
            }
        self.init(
            kind: kind, code: error.rawValue, path: path, operation: operation,
            message: error.message)
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
        case .diskFull:
            text += "; free some disk space"
        case .readOnly:
            text += "; make the file and its folder writable"
        case .busy:
            text += "; another store or process is writing the file"
        case .ioError, .invalidValue, .sqlite:
            break
        }
        return text
    }
}
