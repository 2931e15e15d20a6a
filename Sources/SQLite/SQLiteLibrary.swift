internal import CSQLite

/// Process-wide SQLite set-up, done once before the first connection opens.
enum SQLiteLibrary {
    /// `sqlite3_initialize`'s result after the process-wide configuration; read before every open.
    ///
    /// A fleet holds thousands of connections, so the defaults that reserve memory per connection
    /// are turned off: the bulk page-cache allocation (pages are then allocated one by one and
    /// `sqlite3_db_release_memory` can give them back), the lookaside allocator (about 120 KiB per
    /// connection by default) and memory statistics (a global mutex on every allocation).
    /// `sqlite3_config` only works before SQLite is initialised; if something else in the process
    /// initialised it first these calls fail with `SQLITE_MISUSE`, which costs memory, not
    /// correctness, so their results are ignored and each connection also turns its lookaside off.
    static let initialisation: Int32 = {
        _ = beekon_sqlite3_config_pagecache(nil, 0, 0)
        _ = beekon_sqlite3_config_lookaside(0, 0)
        _ = beekon_sqlite3_config_memstatus(0)
        return sqlite3_initialize()
    }()
}
