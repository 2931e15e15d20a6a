import Foundation
internal import SQLite

/// One device's SQLite store: its fixes, its geofence events and its persisted state.
///
/// Confined to the scheduler's thread, like the device it belongs to, so it is not `Sendable`.
/// Every write is committed before the call returns, and a write that fails leaves nothing
/// behind. Used alone, a store opens its file in `init`; given a `StorePool`, it opens on first
/// use and the pool may close it again to keep the number of open files bounded. Either way the
/// store keeps its row counts, so a closed store reopens without recounting.
///
/// One store object per file: the cached counts assume nothing else writes the file.
public final class DeviceStore {
    /// The database file.
    public let path: String
    /// Its WAL file.
    private let walPath: String
    /// What is kept; applied after every insert. Local-only until the device's config says sync.
    public var retention: RetentionPolicy
    /// The pool that bounds how many stores are open, if any.
    let pool: StorePool?

    /// The open connection; nil while closed.
    private(set) var connection: SQLiteConnection?
    /// Compiled statements by `StoreQuery.rawValue`, compiled on first use.
    private var statements: [Statement?] = []
    /// Row counts and oldest timestamps; loaded on the first open and kept across closes.
    var tallies = StoreTallies()
    /// Whether `tallies` has been loaded from the file.
    private(set) var talliesLoaded = false
    /// Whether the file's folder has been created.
    private var folderMade = false
    /// Written from `StoreTemplate` and not opened since: it holds no state, so reading some
    /// needs no open.
    var fresh = false
    /// Acknowledged or dropped rows whose delete failed (see `HeldDeletes`).
    var heldDeletes = HeldDeletes()
    /// The file's `fix_ledger` row as last committed; loaded with the tallies.
    var storedLedger = StoredLedger()
    /// Fixes admitted whose insert failed, not yet written to `fix_ledger` (the next commit
    /// that goes through adds them). Lost with the process if it dies first, as the fixes are.
    var unrecordedLosses = 0
    /// Commits that stored rows (one `insert` call that went through), for tests and benchmarks.
    package internal(set) var rowCommits = 0
    /// Testing: the page limit set by `limitPagesForTesting(_:)`, applied on every open.
    private var pageLimitForTesting: Int?

    /// Where the pool keeps this store among its open ones; -1 while closed.
    var indexInPool = -1

    /// Opens (creating if missing, with its folders) the store at `path`, used without a pool.
    ///
    /// Fails if the file is not a database or was written by a newer build; migrates an older one.
    public init(path: String, retention: RetentionPolicy = .localOnly) throws(StoreError) {
        self.path = path
        walPath = path + "-wal"
        self.retention = retention
        pool = nil
        _ = try open()
    }

    /// A store at `path` that opens on first use, through `pool`.
    ///
    /// Nothing touches the file yet: an error in opening it is thrown by the first call that
    /// needs it.
    public init(path: String, retention: RetentionPolicy = .localOnly, pool: StorePool) {
        self.path = path
        walPath = path + "-wal"
        self.retention = retention
        self.pool = pool
    }

    deinit {
        if connection != nil {
            pool?.storeDidClose(self)
        }
    }

    /// The schema version this build creates and reads (the file's `PRAGMA user_version`).
    public static var schemaVersion: Int { StoreSchema.currentVersion }

    /// Whether the file is open now.
    public var isOpen: Bool { connection != nil }

    /// Closes the file; the next call that needs it opens it again.
    ///
    /// Nothing is lost: every write was already committed. This checkpoints the WAL into the
    /// database and removes the `-wal` file, leaving one self-contained file.
    public func close() {
        close(checkpointing: true)
    }

    /// Closes the file, checkpointing first or (when a pool makes room, or the run ends) not: a
    /// checkpoint copies the WAL into the database, and the WAL is as durable as the database, so a
    /// store that will be reopened soon keeps it, unless the WAL has outgrown
    /// `StoreTuning.walKeptOnCloseBytes`.
    ///
    /// Why the bound: a reopened store rebuilds its WAL index by reading every frame, and counts
    /// none of them as checkpointed (the index lives on the heap, not in a `-shm` file). A WAL
    /// that was never emptied grew with every reopen, and each reopen read it twice, once to
    /// rebuild the index and once to checkpoint it all again at the first commit:
    /// `bench store`'s reopen-and-insert took 2.2 ms with a 2.9 MB WAL. Checkpointed at close,
    /// the WAL goes, and the next open has nothing to read back.
    func close(checkpointing: Bool) {
        guard let connection else { return }
        if !checkpointing, !walOutgrown() {
            connection.skipCheckpointOnClose()
        }
        // Statements first: each holds the connection, which closes when the last one goes.
        statements = []
        self.connection = nil
        pool?.storeDidClose(self)
    }

    /// Whether the `-wal` file is larger than a store keeps when it closes without a checkpoint.
    private func walOutgrown() -> Bool {
        var info = stat()
        return stat(walPath, &info) == 0 && Int(info.st_size) > StoreTuning.walKeptOnCloseBytes
    }

    /// Gives back the memory an idle open store can spare: its compiled statements and the
    /// unused pages of its cache. The next call recompiles what it needs.
    public func releaseMemory() {
        guard let connection else { return }
        statements = Array(repeating: nil, count: StoreQuery.allCases.count)
        connection.releaseMemory()
    }

    /// The tallies, opening the file first if they were never loaded (a closed store answers
    /// from memory).
    func loadedTallies() throws(StoreError) -> StoreTallies {
        if !talliesLoaded {
            _ = try open()
        }
        return tallies
    }

    /// Where this device's admitted fixes went (see `FixLedger`); nil until the file was first
    /// opened. Answered from memory.
    public var ledger: FixLedger? {
        guard talliesLoaded else { return nil }
        var stored = storedLedger
        stored.lost += unrecordedLosses
        return stored.ledger(stored: tallies.fixes.count)
    }

    /// A fix the device admitted could not be stored (its insert failed): counted as admitted and
    /// lost, written to the file with the next commit that goes through.
    public func noteLostFix() {
        unrecordedLosses += 1
    }

    // MARK: Opening

    /// Makes the store ready before its first use, at little cost: a file that does not exist is
    /// written whole from a new store's bytes (`StoreTemplate`), without SQLite, and its counts
    /// are then known to be zero, so it stays closed until its device first needs it; a file
    /// that exists is opened to read its counts, as its first use would. Idempotent.
    ///
    /// A write that fails (a full disk) removes what it wrote, so no half-made file is left.
    public func prepare() throws(StoreError) {
        guard !talliesLoaded else { return }
        if try writeTemplate() {
            tallies = StoreTallies()
            storedLedger = StoredLedger()
            talliesLoaded = true
            fresh = true
            return
        }
        _ = try open()
    }

    /// Writes `StoreTemplate` to `path` when no file is there; false when one is (or no
    /// template could be made).
    private func writeTemplate() throws(StoreError) -> Bool {
        guard let template = StoreTemplate.bytes else { return false }
        try makeFolder()
        let descriptor = Foundation.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, PrivateFile.fileMode)
        guard descriptor >= 0 else {
            let number = errno
            if number == EEXIST { return false }
            throw Self.systemError(number, path: path, operation: "create")
        }
        var failure: Int32?
        if !template.withUnsafeBytes({ PrivateFile.writeAll($0, to: descriptor) }) { failure = errno }
        if Foundation.close(descriptor) != 0, failure == nil { failure = errno }
        if let failure {
            unlink(path)
            throw Self.systemError(failure, path: path, operation: "create")
        }
        return true
    }

    /// A failed system call on the file, by its `errno`, as SQLite would have reported it.
    private static func systemError(_ number: Int32, path: String, operation: String) -> StoreError {
        let kind: StoreError.Kind
        switch number {
        case ENOSPC, EDQUOT: kind = .full
        case EMFILE, ENFILE: kind = .tooManyOpenFiles
        case EROFS, EACCES, EPERM: kind = .readOnly
        case EIO: kind = .ioError
        default: kind = .cannotOpen
        }
        return StoreError(kind: kind, path: path, operation: operation, message: String(cString: strerror(number)))
    }

    /// Creates the file's folder (0700) once.
    private func makeFolder() throws(StoreError) {
        guard !folderMade else { return }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        do {
            try PrivateFile.createFolder(atPath: folder.path)
        } catch {
            throw StoreError(
                kind: .cannotOpen, path: path, operation: "create folder \(folder.path)", message: "\(error)")
        }
        folderMade = true
    }

    /// The open connection, opening the file first if needed; tells the pool about the use.
    func open() throws(StoreError) -> SQLiteConnection {
        if let connection {
            return connection
        }
        pool?.makeRoom()
        fresh = false
        let connection = try openConnection()
        self.connection = connection
        statements = Array(repeating: nil, count: StoreQuery.allCases.count)
        pool?.storeDidOpen(self)
        if !talliesLoaded {
            do throws(SQLiteError) {
                tallies = try loadTallies(on: connection)
                storedLedger = try loadLedger(on: connection)
                talliesLoaded = true
            } catch {
                close()
                throw StoreError(error, path: path, operation: "count stored rows")
            }
        }
        return connection
    }

    /// Opens the file, checks and migrates its schema, and sets the connection up.
    private func openConnection() throws(StoreError) -> SQLiteConnection {
        try makeFolder()
        let connection = try attempt("open") { () throws(SQLiteError) in
            try SQLiteConnection(path: path, locking: .heldWhileOpen)
        }
        // One process owns a device's store, as one app owns its database on a phone. Holding
        // the lock for the connection's life spares each transaction its fcntl calls (a tenth
        // of a busy fleet's time) and each open a walk over every open file (see
        // `FileLocking.heldWhileOpen`), and with the mode set before the first read the WAL index
        // lives on the heap rather than in a `-shm` file: three descriptors a store (database,
        // `-wal`, the lock's), not four.
        try attempt("set locking mode") { () throws(SQLiteError) in
            try connection.execute("PRAGMA locking_mode = EXCLUSIVE")
        }
        // Read before anything writes, so a file that is not a database, or is newer than this
        // build, is refused untouched.
        let version = try attempt("read schema version") { () throws(SQLiteError) in
            try Self.integerPragma("user_version", on: connection)
        }
        guard version <= StoreSchema.currentVersion else {
            throw StoreError(
                kind: .newerSchema, path: path, operation: "read schema version",
                message: "the file has schema version \(version), "
                    + "this build knows versions up to \(StoreSchema.currentVersion)")
        }
        try attempt("set up connection") { () throws(SQLiteError) in
            try configure(connection)
        }
        // A new file gets the current schema in one step; an older one each migration in its own
        // transaction with its version bump.
        if version == 0 {
            try attempt("create schema version \(StoreSchema.currentVersion)") { () throws(SQLiteError) in
                try Self.createCurrent(connection)
            }
        }
        for next in (version == 0 ? StoreSchema.currentVersion : version)..<StoreSchema.migrations.count {
            try attempt("migrate schema to version \(next + 1)") { () throws(SQLiteError) in
                try Self.migrate(connection, to: next + 1)
            }
        }
        if let pages = pageLimitForTesting {
            try attempt("limit pages for testing") { () throws(SQLiteError) in
                try Self.limitPages(pages, on: connection)
            }
        }
        return connection
    }

    /// Testing: makes the file behave as if its disk were full once it holds `pages` pages (at
    /// least its size now), or lifts the limit when nil. Kept across closes and reopens.
    ///
    /// `PRAGMA max_page_count` makes a write that needs one more page fail with SQLITE_FULL. A
    /// DELETE needs no new page, but on a full disk it fails too (its WAL frames cannot be
    /// written), so while limited a temporary trigger makes every DELETE of a fix or event first
    /// write 64 KiB into a temporary table that is itself at its page limit: SQLITE_FULL again.
    /// Lifting the limit closes the file; it reopens without either.
    package func limitPagesForTesting(_ pages: Int?) throws(StoreError) {
        pageLimitForTesting = pages
        guard let pages else {
            close()
            return
        }
        if let connection {
            try attempt("limit pages for testing") { () throws(SQLiteError) in
                try Self.limitPages(pages, on: connection)
            }
        }
    }

    private static func limitPages(_ pages: Int, on connection: SQLiteConnection) throws(SQLiteError) {
        try connection.execute(
            """
            PRAGMA max_page_count = \(max(1, pages));
            CREATE TEMP TABLE IF NOT EXISTS full_disk_ballast (b BLOB);
            PRAGMA temp.max_page_count = 1;
            CREATE TEMP TRIGGER IF NOT EXISTS full_disk_locations BEFORE DELETE ON main.locations
            BEGIN INSERT INTO full_disk_ballast VALUES (zeroblob(65536)); END;
            CREATE TEMP TRIGGER IF NOT EXISTS full_disk_events BEFORE DELETE ON main.geofence_events
            BEGIN INSERT INTO full_disk_ballast VALUES (zeroblob(65536)); END;
            """)
    }

    /// Runs `body`, naming this file and `operation` in any error.
    private func attempt<Result>(
        _ operation: String, _ body: () throws(SQLiteError) -> Result
    ) throws(StoreError) -> Result {
        do throws(SQLiteError) {
            return try body()
        } catch {
            throw StoreError(error, path: path, operation: operation)
        }
    }

    /// Per-connection settings, sized for thousands of small stores open at once.
    private func configure(_ connection: SQLiteConnection) throws(SQLiteError) {
        // page_size only takes effect on a new, empty file, so it must precede the first write
        // (the switch to WAL); journal_mode is then stored in the file; the rest last as long as
        // the connection.
        try connection.execute("PRAGMA page_size = \(StoreTuning.pageSize)")
        let mode = try Self.textPragma("journal_mode = WAL", on: connection)
        guard mode.lowercased() == "wal" else {
            throw SQLiteError(.error, message: "cannot use WAL mode (journal mode is \(mode))")
        }
        // synchronous=OFF: every commit still reaches the kernel before the call returns, so a
        // SIGKILL or crash of the fleet process loses nothing admitted; only the machine's own
        // crash or power cut can. What OFF saves is the fsync NORMAL makes at each checkpoint
        // and each time a WAL starts afresh, on the loop's thread: at 100,000 devices, 1.5x the
        // fixes and 3.5x the uploads (docs/benchmarks.md).
        try connection.execute(
            """
            PRAGMA synchronous = OFF;
            PRAGMA cache_size = \(StoreTuning.cachePages);
            PRAGMA wal_autocheckpoint = \(StoreTuning.walAutocheckpointPages);
            PRAGMA journal_size_limit = \(StoreTuning.journalSizeLimitBytes);
            """)
    }

    /// Creates the current schema in a new file and records its version, in one transaction.
    private static func createCurrent(_ connection: SQLiteConnection) throws(SQLiteError) {
        try connection.execute("BEGIN IMMEDIATE")
        do throws(SQLiteError) {
            try connection.execute(StoreSchema.current)
            try connection.execute("PRAGMA user_version = \(StoreSchema.currentVersion)")
            try connection.execute("COMMIT")
        } catch {
            if !connection.isAutocommit {
                try? connection.execute("ROLLBACK")
            }
            throw error
        }
    }

    /// Applies the migration to `version` and records it, in one transaction (statements are
    /// not cached yet while opening, so this one uses plain SQL).
    private static func migrate(_ connection: SQLiteConnection, to version: Int) throws(SQLiteError) {
        try connection.execute("BEGIN IMMEDIATE")
        do throws(SQLiteError) {
            try connection.execute(StoreSchema.migrations[version - 1])
            try connection.execute("PRAGMA user_version = \(version)")
            try connection.execute("COMMIT")
        } catch {
            if !connection.isAutocommit {
                try? connection.execute("ROLLBACK")
            }
            throw error
        }
    }

    private static func integerPragma(
        _ name: String, on connection: SQLiteConnection
    ) throws(SQLiteError) -> Int {
        let statement = try connection.prepare("PRAGMA \(name)")
        defer { statement.reset() }
        return try statement.step() ? statement.int(at: 0) : 0
    }

    private static func textPragma(
        _ pragma: String, on connection: SQLiteConnection
    ) throws(SQLiteError) -> String {
        let statement = try connection.prepare("PRAGMA \(pragma)")
        defer { statement.reset() }
        return try statement.step() ? statement.string(at: 0) : ""
    }

    // MARK: Running statements

    /// Opens if needed, runs `body`, and names this file and `operation` in any error.
    func perform<Result>(
        _ operation: String, _ body: (SQLiteConnection) throws(SQLiteError) -> Result
    ) throws(StoreError) -> Result {
        let connection = try open()
        return try attempt(operation) { () throws(SQLiteError) in try body(connection) }
    }

    /// The compiled statement for `query` on the open connection, compiled on first use.
    func statement(_ query: StoreQuery, on connection: SQLiteConnection) throws(SQLiteError)
        -> Statement
    {
        if let statement = statements[query.rawValue] {
            return statement
        }
        let statement = try connection.prepare(query.sql, persistent: true)
        statements[query.rawValue] = statement
        return statement
    }

    /// Runs `body` in one write transaction: all of it is committed, or none of it. With
    /// `needed` false `body` runs in autocommit, for a body of one statement (its own transaction).
    func transaction<Result>(
        on connection: SQLiteConnection, needed: Bool = true, _ body: () throws(SQLiteError) -> Result
    ) throws(SQLiteError) -> Result {
        guard needed else { return try body() }
        try statement(.begin, on: connection).run()
        do throws(SQLiteError) {
            let result = try body()
            try statement(.commit, on: connection).run()
            return result
        } catch {
            // A failed COMMIT can leave the transaction open; a failed statement always does.
            if !connection.isAutocommit {
                try? connection.execute("ROLLBACK")
            }
            throw error
        }
    }

    /// A row that SQLite returned but this build cannot read: reported as corruption.
    static func unreadableRow(_ table: String, seq: Int64, _ problem: String) -> SQLiteError {
        SQLiteError(.corrupt, message: "\(table) row \(seq): \(problem)")
    }
}
