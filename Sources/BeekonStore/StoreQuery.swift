/// Every statement a `DeviceStore` runs more than once; each is compiled on first use and kept
/// until the connection closes or its memory is released.
enum StoreQuery: Int, CaseIterable {
    case begin
    case commit

    case insertFix
    case insertEvent
    case countFixes
    case countEvents
    case oldestFixTimestamp
    case oldestEventTimestamp
    case newestFixTimestamp
    case newestEventTimestamp

    case history
    case deleteFixesAtOrBefore
    case deleteAllFixes

    case pruneFixesOlderThan
    case pruneEventsOlderThan
    case trimOldestFixes
    case trimOldestEvents

    case oldestPendingFix
    case oldestPendingEvent
    case sessionFixes
    case sessionEvents
    // The same four, passing over the rows whose seq is in a JSON array parameter (held
    // deletes, see `HeldDeletes`); used only while some are held.
    case oldestPendingFixExcluding
    case oldestPendingEventExcluding
    case sessionFixesExcluding
    case sessionEventsExcluding
    // The rows of a batch sent before, by the seqs in a JSON array parameter.
    case sentFixes
    case sentEvents
    case deleteFixRow
    case deleteEventRow

    case readState
    case writeState
    case clearState

    case readLedger
    case addToLedger

    case insertTold
    case readTold

    /// The form of an `oldestPending*` query that passes over held rows.
    var excluding: StoreQuery {
        switch self {
        case .oldestPendingFix: .oldestPendingFixExcluding
        case .oldestPendingEvent: .oldestPendingEventExcluding
        default: self
        }
    }

    /// The columns `DeviceStore.readFix` reads, in its order.
    static let fixColumns =
        "seq, id, ts, lat, lng, accuracy, speed, bearing, altitude, "
        + "trigger, motion, activity, quality, is_mock"

    /// The columns `DeviceStore.readEvent` reads, in its order.
    static let eventColumns = "seq, id, geofence_id, type, ts"

    var sql: String {
        switch self {
        // IMMEDIATE takes the write lock up front, so a transaction cannot fail half-way on it.
        case .begin: "BEGIN IMMEDIATE"
        case .commit: "COMMIT"

        case .insertFix:
            """
            INSERT INTO locations (ts, lat, lng, accuracy, speed, bearing, altitude, id, session_id,
                trigger, motion, activity, quality, is_mock)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)
            """
        case .insertEvent:
            """
            INSERT INTO geofence_events (id, session_id, geofence_id, type, ts)
            VALUES (?1, ?2, ?3, ?4, ?5)
            """
        case .countFixes: "SELECT count(*) FROM locations"
        case .countEvents: "SELECT count(*) FROM geofence_events"
        case .oldestFixTimestamp: "SELECT min(ts) FROM locations"
        case .oldestEventTimestamp: "SELECT min(ts) FROM geofence_events"
        case .newestFixTimestamp: "SELECT max(ts) FROM locations"
        case .newestEventTimestamp: "SELECT max(ts) FROM geofence_events"

        // The ts index holds (ts, seq), so this order needs no sort.
        case .history:
            "SELECT \(Self.fixColumns) FROM locations WHERE ts BETWEEN ?1 AND ?2 ORDER BY ts, seq"
        case .deleteFixesAtOrBefore: "DELETE FROM locations WHERE ts <= ?1"
        case .deleteAllFixes: "DELETE FROM locations"

        case .pruneFixesOlderThan: "DELETE FROM locations WHERE ts < ?1"
        case .pruneEventsOlderThan: "DELETE FROM geofence_events WHERE ts < ?1"
        case .trimOldestFixes:
            """
            DELETE FROM locations
            WHERE seq IN (SELECT seq FROM locations ORDER BY ts, seq LIMIT ?1)
            """
        case .trimOldestEvents:
            """
            DELETE FROM geofence_events
            WHERE seq IN (SELECT seq FROM geofence_events ORDER BY ts, seq LIMIT ?1)
            """

        case .oldestPendingFix: "SELECT session_id, ts FROM locations ORDER BY ts, seq LIMIT 1"
        case .oldestPendingEvent:
            "SELECT session_id, ts FROM geofence_events ORDER BY ts, seq LIMIT 1"
        case .sessionFixes:
            """
            SELECT \(Self.fixColumns) FROM locations WHERE session_id = ?1 ORDER BY ts, seq LIMIT ?2
            """
        case .sessionEvents:
            """
            SELECT \(Self.eventColumns) FROM geofence_events WHERE session_id = ?1
            ORDER BY ts, seq
            """
        case .oldestPendingFixExcluding:
            """
            SELECT session_id, ts FROM locations WHERE seq NOT IN (SELECT value FROM json_each(?1))
            ORDER BY ts, seq LIMIT 1
            """
        case .oldestPendingEventExcluding:
            """
            SELECT session_id, ts FROM geofence_events
            WHERE seq NOT IN (SELECT value FROM json_each(?1)) ORDER BY ts, seq LIMIT 1
            """
        case .sessionFixesExcluding:
            """
            SELECT \(Self.fixColumns) FROM locations
            WHERE session_id = ?1 AND seq NOT IN (SELECT value FROM json_each(?3)) ORDER BY ts, seq LIMIT ?2
            """
        case .sessionEventsExcluding:
            """
            SELECT \(Self.eventColumns) FROM geofence_events
            WHERE session_id = ?1 AND seq NOT IN (SELECT value FROM json_each(?2)) ORDER BY ts, seq
            """
        case .sentFixes:
            """
            SELECT \(Self.fixColumns) FROM locations
            WHERE seq IN (SELECT value FROM json_each(?1)) AND session_id = ?2
            """
        case .sentEvents:
            """
            SELECT \(Self.eventColumns) FROM geofence_events
            WHERE seq IN (SELECT value FROM json_each(?1)) AND session_id = ?2
            """
        case .deleteFixRow: "DELETE FROM locations WHERE seq = ?1 AND id = ?2"
        case .deleteEventRow: "DELETE FROM geofence_events WHERE seq = ?1 AND id = ?2"

        case .insertTold: "INSERT INTO told (batch_id, heard, at, fix_ids) VALUES (?1, ?2, ?3, ?4)"
        case .readTold: "SELECT batch_id, heard, at, fix_ids FROM told ORDER BY rowid"

        case .readState: "SELECT value FROM device_state WHERE key = ?1"
        case .writeState: "INSERT OR REPLACE INTO device_state (key, value) VALUES (?1, ?2)"
        case .clearState: "DELETE FROM device_state WHERE key = ?1"

        case .readLedger: "SELECT removed, rejected, expired, deleted, lost FROM fix_ledger"
        // ?1 fixes lost, ?2 rejected, ?3 expired, ?4 deleted: causes
        // of rows the statement before deleted, counted as `removed` by the trigger.
        case .addToLedger:
            """
            UPDATE fix_ledger SET lost = lost + ?1, rejected = rejected + ?2,
                expired = expired + ?3, deleted = deleted + ?4
            """
        }
    }
}
