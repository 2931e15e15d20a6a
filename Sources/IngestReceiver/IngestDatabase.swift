internal import SQLite

/// The receiver's SQLite file: devices, sessions, batches, locations and geofence events, with
/// UNIQUE keys on every id so replays store nothing twice.
///
/// One writer connection, WAL with `synchronous=FULL`: `store` and `storeGroup` return only
/// after their commit is durable, and the caller answers 2xx only after that. Not thread-safe:
/// the receiver's `IngestWriter` owns it on its one thread.
final class IngestDatabase {
    /// What storing one batch changed.
    struct Outcome: Sendable, Hashable {
        /// Whether `batch_id` was new.
        var newBatch: Bool
        /// Timestamps (Unix ms) of the locations stored now; those already present are not here.
        var storedLocationTimestamps: [Int64]
        var duplicateLocations: Int
        var storedGeofenceEvents: Int
        var duplicateGeofenceEvents: Int
        /// Locations already stored under another `batch_id`: a fix sent again in another
        /// batch, which a server deduping on `batch_id` alone would store twice (seed 05: "a
        /// retry carries the same batch_id").
        var locationsInAnotherBatch = 0
        /// Geofence events already stored under another `batch_id`.
        var geofenceEventsInAnotherBatch = 0
        /// Whether the `batch_id` was stored before with other rows than some this upload
        /// carries: a retry that is not the batch it retries.
        var changedOnRetry: Bool {
            !newBatch
                && (!storedLocationTimestamps.isEmpty || storedGeofenceEvents > 0 || locationsInAnotherBatch > 0
                    || geofenceEventsInAnotherBatch > 0)
        }
    }

    static let schema = """
        CREATE TABLE IF NOT EXISTS devices (
            install_id TEXT PRIMARY KEY NOT NULL,
            platform TEXT NOT NULL,
            sdk_version TEXT NOT NULL,
            model TEXT,
            first_seen_ms INTEGER NOT NULL,
            last_seen_ms INTEGER NOT NULL
        );
        CREATE TABLE IF NOT EXISTS sessions (
            install_id TEXT NOT NULL,
            session_id TEXT NOT NULL,
            first_seen_ms INTEGER NOT NULL,
            last_seen_ms INTEGER NOT NULL,
            PRIMARY KEY (install_id, session_id)
        );
        CREATE TABLE IF NOT EXISTS batches (
            batch_id TEXT PRIMARY KEY NOT NULL,
            install_id TEXT NOT NULL,
            session_id TEXT NOT NULL,
            sent_at_ms INTEGER NOT NULL,
            received_ms INTEGER NOT NULL,
            location_count INTEGER NOT NULL,
            geofence_event_count INTEGER NOT NULL,
            extras TEXT
        );
        CREATE TABLE IF NOT EXISTS locations (
            id TEXT PRIMARY KEY NOT NULL,
            batch_id TEXT NOT NULL,
            install_id TEXT NOT NULL,
            session_id TEXT NOT NULL,
            ts INTEGER NOT NULL,
            received_ms INTEGER NOT NULL,
            trigger TEXT NOT NULL,
            motion TEXT NOT NULL,
            is_mock INTEGER NOT NULL,
            lat REAL NOT NULL,
            lng REAL NOT NULL,
            accuracy REAL,
            speed REAL,
            bearing REAL,
            altitude REAL,
            activity TEXT,
            quality TEXT
        );
        CREATE INDEX IF NOT EXISTS locations_by_trip ON locations (install_id, session_id, ts);
        CREATE TABLE IF NOT EXISTS geofence_events (
            id TEXT PRIMARY KEY NOT NULL,
            batch_id TEXT NOT NULL,
            install_id TEXT NOT NULL,
            session_id TEXT NOT NULL,
            geofence_id TEXT NOT NULL,
            type TEXT NOT NULL,
            ts INTEGER NOT NULL,
            received_ms INTEGER NOT NULL
        );
        CREATE INDEX IF NOT EXISTS geofence_events_by_trip ON geofence_events (install_id, session_id, ts);
        """

    private let connection: SQLiteConnection
    private let begin: Statement
    private let commit: Statement
    private let rollback: Statement
    private let upsertDevice: Statement
    private let upsertSession: Statement
    private let insertBatch: Statement
    private let insertLocation: Statement
    private let insertEvent: Statement
    private let locationBatch: Statement
    private let eventBatch: Statement

    /// Opens (creating if needed) the database at `path` and sets up the schema.
    init(path: String) throws(SQLiteError) {
        connection = try SQLiteConnection(path: path)
        try connection.execute(
            "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA busy_timeout = 5000;")
        try connection.execute(Self.schema)
        begin = try connection.prepare("BEGIN IMMEDIATE", persistent: true)
        commit = try connection.prepare("COMMIT", persistent: true)
        rollback = try connection.prepare("ROLLBACK", persistent: true)
        upsertDevice = try connection.prepare(
            """
            INSERT INTO devices (install_id, platform, sdk_version, model, first_seen_ms, last_seen_ms)
            VALUES (?1, ?2, ?3, ?4, ?5, ?5)
            ON CONFLICT (install_id) DO UPDATE SET platform = excluded.platform,
                sdk_version = excluded.sdk_version, model = excluded.model,
                last_seen_ms = max(last_seen_ms, excluded.last_seen_ms)
            """, persistent: true)
        upsertSession = try connection.prepare(
            """
            INSERT INTO sessions (install_id, session_id, first_seen_ms, last_seen_ms) VALUES (?1, ?2, ?3, ?3)
            ON CONFLICT (install_id, session_id) DO UPDATE SET
                last_seen_ms = max(last_seen_ms, excluded.last_seen_ms)
            """, persistent: true)
        insertBatch = try connection.prepare(
            """
            INSERT INTO batches (batch_id, install_id, session_id, sent_at_ms, received_ms,
                location_count, geofence_event_count, extras)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT (batch_id) DO NOTHING
            """, persistent: true)
        insertLocation = try connection.prepare(
            """
            INSERT INTO locations (id, batch_id, install_id, session_id, ts, received_ms, trigger, motion,
                is_mock, lat, lng, accuracy, speed, bearing, altitude, activity, quality)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)
            ON CONFLICT (id) DO NOTHING
            """, persistent: true)
        insertEvent = try connection.prepare(
            """
            INSERT INTO geofence_events (id, batch_id, install_id, session_id, geofence_id, type, ts, received_ms)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT (id) DO NOTHING
            """, persistent: true)
        locationBatch = try connection.prepare("SELECT batch_id FROM locations WHERE id = ?1", persistent: true)
        eventBatch = try connection.prepare("SELECT batch_id FROM geofence_events WHERE id = ?1", persistent: true)
    }

    /// Whether the row `id` that `query` finds was stored under another batch than `batchID`
    /// (asked of duplicates only, so a first sending costs nothing).
    private func storedUnderAnotherBatch(
        _ id: String, _ query: Statement, batchID: String
    ) throws(SQLiteError) -> Bool {
        defer { query.reset() }
        try query.bind(id, at: 1)
        guard try query.step() else { return false }
        return query.string(at: 0) != batchID
    }

    /// Stores `batch` in one transaction, skipping every id already present; returns after the
    /// commit. Every row is offered even when the batch id is known, so a replay that carries
    /// new rows under an old batch id loses none of them.
    func store(_ batch: IngestBatch, receivedAt: Int64) throws(SQLiteError) -> Outcome {
        try begin.run()
        do {
            let outcome = try insert(batch, receivedAt: receivedAt)
            try commit.run()
            return outcome
        } catch {
            if !connection.isAutocommit { try? rollback.run() }
            throw error
        }
    }

    /// Stores every batch of `group`, in order, in ONE transaction with one commit (one fsync);
    /// returns their outcomes after the commit. Each batch is offered exactly as `store` offers
    /// it, so a batch sees the rows of the batches before it in the group as duplicates, just as
    /// it would had they been stored one by one. On any error nothing of the group is stored.
    func storeGroup(_ group: [(batch: IngestBatch, receivedAt: Int64)]) throws(SQLiteError) -> [Outcome] {
        try begin.run()
        do {
            var outcomes: [Outcome] = []
            outcomes.reserveCapacity(group.count)
            for item in group {
                outcomes.append(try insert(item.batch, receivedAt: item.receivedAt))
            }
            try commit.run()
            return outcomes
        } catch {
            if !connection.isAutocommit { try? rollback.run() }
            throw error
        }
    }

    private func insert(_ batch: IngestBatch, receivedAt: Int64) throws(SQLiteError) -> Outcome {
        try upsertDevice.bind(batch.installID, at: 1)
        try upsertDevice.bind(batch.platform, at: 2)
        try upsertDevice.bind(batch.sdkVersion, at: 3)
        try upsertDevice.bind(batch.model, at: 4)
        try upsertDevice.bind(receivedAt, at: 5)
        try upsertDevice.run()
        try upsertSession.bind(batch.installID, at: 1)
        try upsertSession.bind(batch.sessionID, at: 2)
        try upsertSession.bind(receivedAt, at: 3)
        try upsertSession.run()
        try insertBatch.bind(batch.batchID, at: 1)
        try insertBatch.bind(batch.installID, at: 2)
        try insertBatch.bind(batch.sessionID, at: 3)
        try insertBatch.bind(batch.sentAt, at: 4)
        try insertBatch.bind(receivedAt, at: 5)
        try insertBatch.bind(batch.locations.count, at: 6)
        try insertBatch.bind(batch.geofenceEvents.count, at: 7)
        try insertBatch.bind(batch.extrasJSON, at: 8)
        try insertBatch.run()
        var outcome = Outcome(
            newBatch: connection.changes == 1, storedLocationTimestamps: [], duplicateLocations: 0,
            storedGeofenceEvents: 0, duplicateGeofenceEvents: 0)
        for location in batch.locations {
            try insertLocation.bind(location.id, at: 1)
            try insertLocation.bind(batch.batchID, at: 2)
            try insertLocation.bind(batch.installID, at: 3)
            try insertLocation.bind(batch.sessionID, at: 4)
            try insertLocation.bind(location.timestamp, at: 5)
            try insertLocation.bind(receivedAt, at: 6)
            try insertLocation.bind(location.trigger, at: 7)
            try insertLocation.bind(location.motion, at: 8)
            try insertLocation.bind(location.isMock, at: 9)
            try insertLocation.bind(location.latitude, at: 10)
            try insertLocation.bind(location.longitude, at: 11)
            try insertLocation.bind(location.accuracy, at: 12)
            try insertLocation.bind(location.speed, at: 13)
            try insertLocation.bind(location.bearing, at: 14)
            try insertLocation.bind(location.altitude, at: 15)
            try insertLocation.bind(location.activity, at: 16)
            try insertLocation.bind(location.quality, at: 17)
            try insertLocation.run()
            if connection.changes == 1 {
                outcome.storedLocationTimestamps.append(location.timestamp)
            } else {
                outcome.duplicateLocations += 1
                if try storedUnderAnotherBatch(location.id, locationBatch, batchID: batch.batchID) {
                    outcome.locationsInAnotherBatch += 1
                }
            }
        }
        for event in batch.geofenceEvents {
            try insertEvent.bind(event.id, at: 1)
            try insertEvent.bind(batch.batchID, at: 2)
            try insertEvent.bind(batch.installID, at: 3)
            try insertEvent.bind(batch.sessionID, at: 4)
            try insertEvent.bind(event.geofenceID, at: 5)
            try insertEvent.bind(event.type, at: 6)
            try insertEvent.bind(event.timestamp, at: 7)
            try insertEvent.bind(receivedAt, at: 8)
            try insertEvent.run()
            if connection.changes == 1 {
                outcome.storedGeofenceEvents += 1
            } else {
                outcome.duplicateGeofenceEvents += 1
                if try storedUnderAnotherBatch(event.id, eventBatch, batchID: batch.batchID) {
                    outcome.geofenceEventsInAnotherBatch += 1
                }
            }
        }
        return outcome
    }
}
