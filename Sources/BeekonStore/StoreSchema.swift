/// The store's schema, as an ordered list of migrations; `PRAGMA user_version` records how many
/// have been applied to a file.
///
/// Each migration runs in its own transaction together with the `user_version` bump, so a file
/// is always at a version it can be read at. Never edit a shipped migration: append one.
enum StoreSchema {
    /// Migration `i` takes a file from version `i` to `i + 1`.
    static let migrations: [String] = [
        // v1. `locations` holds seed 04's columns (ts, lat, lng, accuracy, speed, bearing,
        // altitude) plus what the upload needs. `seq` is the insertion order; it is a plain rowid,
        // so a number can be reused once its row is deleted, and batches match rows on seq and id.
        """
        CREATE TABLE locations (
            seq INTEGER PRIMARY KEY,
            ts INTEGER NOT NULL,
            lat REAL NOT NULL,
            lng REAL NOT NULL,
            accuracy REAL,
            speed REAL,
            bearing REAL,
            altitude REAL,
            id TEXT NOT NULL,
            session_id TEXT NOT NULL,
            trigger TEXT NOT NULL,
            motion TEXT NOT NULL,
            activity TEXT,
            quality TEXT,
            is_mock INTEGER NOT NULL
        );
        CREATE INDEX locations_ts ON locations (ts ASC);
        CREATE TABLE geofence_events (
            seq INTEGER PRIMARY KEY,
            id TEXT NOT NULL,
            session_id TEXT NOT NULL,
            geofence_id TEXT NOT NULL,
            type TEXT NOT NULL,
            ts INTEGER NOT NULL
        );
        CREATE INDEX geofence_events_ts ON geofence_events (ts ASC);
        CREATE TABLE device_state (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL
        ) WITHOUT ROWID;
        """,
        // v2. Where every admitted fix went (`FixLedger`), changed by the commit that changes the
        // rows. Triggers count inserts and deletes inside the statement that makes them; the
        // store adds the other causes in the deleting transaction. A file from v1 starts with its
        // stored fixes admitted (what came before is unknown).
        """
        CREATE TABLE fix_ledger (
            only INTEGER PRIMARY KEY CHECK (only = 0),
            admitted INTEGER NOT NULL,
            removed INTEGER NOT NULL DEFAULT 0,
            rejected INTEGER NOT NULL DEFAULT 0,
            expired INTEGER NOT NULL DEFAULT 0,
            deleted INTEGER NOT NULL DEFAULT 0,
            lost INTEGER NOT NULL DEFAULT 0
        );
        INSERT INTO fix_ledger (only, admitted) SELECT 0, count(*) FROM locations;
        CREATE TRIGGER fix_admitted AFTER INSERT ON locations
        BEGIN UPDATE fix_ledger SET admitted = admitted + 1; END;
        CREATE TRIGGER fix_removed AFTER DELETE ON locations
        BEGIN UPDATE fix_ledger SET removed = removed + 1; END;
        """,
        // v3. Inserts are no longer counted: a fix in the file is admitted, so `admitted` is the
        // rows plus what was removed or lost, and an insert (the most frequent write) changes one
        // table again. Measured: the insert trigger cost a quarter of the single-row commits/s.
        """
        DROP TRIGGER fix_admitted;
        ALTER TABLE fix_ledger DROP COLUMN admitted;
        """,
        // v4. What the device was told of each batch it uploaded (`ToldBatch`), for checking
        // against what the server stored: the batch id and its fix ids as 16 bytes each, how it
        // ended for the device (1 acknowledged, 2 rejected, 3 a 2xx it never heard) and when.
        // Written in the transaction that deletes the batch's rows.
        """
        CREATE TABLE told (
            batch_id BLOB NOT NULL,
            heard INTEGER NOT NULL,
            at INTEGER NOT NULL,
            fix_ids BLOB NOT NULL
        );
        """,
    ]

    /// The version a file is at once every migration this build knows has run.
    static var currentVersion: Int { migrations.count }

    /// The schema at `currentVersion`, for a new file: what the migrations make, in one step (a
    /// new store is the common case, and altering what it just created would leave it larger).
    /// `StoreSchemaTests` holds it to the migrations' result.
    static let current = """
        CREATE TABLE locations (
            seq INTEGER PRIMARY KEY,
            ts INTEGER NOT NULL,
            lat REAL NOT NULL,
            lng REAL NOT NULL,
            accuracy REAL,
            speed REAL,
            bearing REAL,
            altitude REAL,
            id TEXT NOT NULL,
            session_id TEXT NOT NULL,
            trigger TEXT NOT NULL,
            motion TEXT NOT NULL,
            activity TEXT,
            quality TEXT,
            is_mock INTEGER NOT NULL
        );
        CREATE INDEX locations_ts ON locations (ts ASC);
        CREATE TABLE geofence_events (
            seq INTEGER PRIMARY KEY,
            id TEXT NOT NULL,
            session_id TEXT NOT NULL,
            geofence_id TEXT NOT NULL,
            type TEXT NOT NULL,
            ts INTEGER NOT NULL
        );
        CREATE INDEX geofence_events_ts ON geofence_events (ts ASC);
        CREATE TABLE device_state (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE fix_ledger (
            only INTEGER PRIMARY KEY CHECK (only = 0),
            removed INTEGER NOT NULL DEFAULT 0,
            rejected INTEGER NOT NULL DEFAULT 0,
            expired INTEGER NOT NULL DEFAULT 0,
            deleted INTEGER NOT NULL DEFAULT 0,
            lost INTEGER NOT NULL DEFAULT 0
        );
        INSERT INTO fix_ledger (only) VALUES (0);
        CREATE TRIGGER fix_removed AFTER DELETE ON locations
        BEGIN UPDATE fix_ledger SET removed = removed + 1; END;
        CREATE TABLE told (
            batch_id BLOB NOT NULL,
            heard INTEGER NOT NULL,
            at INTEGER NOT NULL,
            fix_ids BLOB NOT NULL
        );
        """
}
