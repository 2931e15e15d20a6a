import BeekonDevice
internal import SQLite

extension DeviceStore {
    /// Stored fixes not yet acknowledged (uploaded fixes are deleted), from the cached count;
    /// acknowledged fixes whose delete failed are not counted.
    public func pendingCount() throws(StoreError) -> Int {
        max(0, try loadedTallies().fixes.count - heldDeletes.fixes.count)
    }

    /// Stored geofence events not yet acknowledged, from the cached count.
    public func pendingEventCount() throws(StoreError) -> Int {
        max(0, try loadedTallies().events.count - heldDeletes.events.count)
    }

    /// Rows the server acknowledged (or refused for good) that are still in the file because
    /// their delete failed: never handed out again, deleted by a later retry.
    public var heldDeleteCount: Int { heldDeletes.fixes.count + heldDeletes.events.count }

    /// The next upload: the session of the oldest pending row (fixes and geofence events
    /// together, by timestamp, a fix before an event at the same instant), up to `limit` of that
    /// session's oldest fixes, and all of its geofence events. Nil when nothing is pending.
    ///
    /// A batch never mixes sessions, and never holds a row that was acknowledged or dropped,
    /// even when its delete failed: those are deleted first (see `retryHeldDeletes()`), and
    /// left out while that still fails. `limit` below 1 is taken as 1.
    ///
    /// With `resending`, a batch given a `batch_id` before whose answer was never settled (its
    /// device died, or rows were deleted while it waited): what is left of exactly its rows
    /// comes first, in its order, whatever arrived since and whatever `limit` now says, so that
    /// it goes out again as the same batch (seed 05: "a retry carries the same batch_id").
    public func nextBatch(limit: Int, resending: SentBatch? = nil) throws(StoreError) -> PendingBatch? {
        // Best effort: while the delete still fails its rows stay out of the batch.
        _ = try? retryHeldDeletes()
        let tallies = try loadedTallies()
        guard tallies.fixes.count > 0 || tallies.events.count > 0 else { return nil }
        let held = heldDeletes
        if let resending, let rest = try rest(of: resending, excluding: held) {
            return rest
        }
        return try perform("read next batch") { connection throws(SQLiteError) in
            // The cached tallies say which tables hold anything: an empty one is not queried.
            let oldestFix =
                tallies.fixes.count > 0
                ? try oldestPending(.oldestPendingFix, excluding: held.fixes, on: connection) : nil
            let oldestEvent =
                tallies.events.count > 0
                ? try oldestPending(.oldestPendingEvent, excluding: held.events, on: connection) : nil
            let sessionID: String
            switch (oldestFix, oldestEvent) {
            case (nil, nil):
                return nil
            case (let fix?, nil):
                sessionID = fix.sessionID
            case (nil, let event?):
                sessionID = event.sessionID
            case (let fix?, let event?):
                sessionID = fix.timestamp <= event.timestamp ? fix.sessionID : event.sessionID
            }

            let fixQuery = try statement(held.fixes.isEmpty ? .sessionFixes : .sessionFixesExcluding, on: connection)
            defer { fixQuery.reset() }
            try fixQuery.bind(sessionID, at: 1)
            try fixQuery.bind(max(limit, 1), at: 2)
            if !held.fixes.isEmpty {
                try fixQuery.bind(HeldDeletes.jsonArray(held.fixes), at: 3)
            }
            var locations: [Location] = []
            var fixSeqs: [Int64] = []
            while oldestFix != nil, try fixQuery.step() {
                let row = try Self.readFix(fixQuery)
                locations.append(row.fix)
                fixSeqs.append(row.seq)
            }

            let eventQuery = try statement(
                held.events.isEmpty ? .sessionEvents : .sessionEventsExcluding, on: connection)
            defer { eventQuery.reset() }
            try eventQuery.bind(sessionID, at: 1)
            if !held.events.isEmpty {
                try eventQuery.bind(HeldDeletes.jsonArray(held.events), at: 2)
            }
            var events: [GeofenceEvent] = []
            var eventSeqs: [Int64] = []
            while oldestEvent != nil, try eventQuery.step() {
                let row = try Self.readEvent(eventQuery)
                events.append(row.event)
                eventSeqs.append(row.seq)
            }
            return PendingBatch(
                sessionID: sessionID, locations: locations, fixRows: fixSeqs,
                geofenceEvents: events, eventRows: eventSeqs)
        }
    }

    /// The rows of `sent` still stored with the seq and id they had, held deletes left out, in
    /// the batch's order; nil when none is.
    private func rest(of sent: SentBatch, excluding held: HeldDeletes) throws(StoreError) -> PendingBatch? {
        guard !sent.fixes.isEmpty || !sent.events.isEmpty else { return nil }
        return try perform("read the batch sent before") { connection throws(SQLiteError) in
            func rows<Row>(
                _ query: StoreQuery, _ wanted: [SentBatch.Row], held: [HeldDeletes.Row],
                read: (Statement) throws(SQLiteError) -> (seq: Int64, row: Row, id: UUIDv7)
            ) throws(SQLiteError) -> [(seq: Int64, row: Row)] {
                guard !wanted.isEmpty else { return [] }
                let statement = try statement(query, on: connection)
                defer { statement.reset() }
                try statement.bind(HeldDeletes.jsonArray(seqs: wanted.map(\.seq)), at: 1)
                try statement.bind(sent.sessionID, at: 2)
                var found: [Int64: (row: Row, id: UUIDv7)] = [:]
                while try statement.step() {
                    let row = try read(statement)
                    found[row.seq] = (row.row, row.id)
                }
                let heldSeqs = Set(held.map(\.seq))
                return wanted.compactMap { want in
                    guard let row = found[want.seq], row.id == want.id, !heldSeqs.contains(want.seq) else { return nil }
                    return (want.seq, row.row)
                }
            }
            let fixes = try rows(.sentFixes, sent.fixes, held: held.fixes) { (row) throws(SQLiteError) in
                let fix = try Self.readFix(row)
                return (fix.seq, fix.fix, fix.fix.id)
            }
            let events = try rows(.sentEvents, sent.events, held: held.events) { (row) throws(SQLiteError) in
                let event = try Self.readEvent(row)
                return (event.seq, event.event, event.event.id)
            }
            guard !fixes.isEmpty || !events.isEmpty else { return nil }
            return PendingBatch(
                sessionID: sent.sessionID, locations: fixes.map(\.row), fixRows: fixes.map(\.seq),
                geofenceEvents: events.map(\.row), eventRows: events.map(\.seq))
        }
    }

    /// Deletes the rows of a batch the server accepted (2xx), and nothing else; returns how many
    /// rows were deleted (fewer than the batch holds if some were deleted meanwhile; more when
    /// held rows of earlier batches were deleted with it).
    ///
    /// When the delete fails the batch's rows are held (see `retryHeldDeletes()`): the error is
    /// thrown, but no later `nextBatch` hands them out, so an acknowledged fix is not sent twice.
    ///
    /// `told` (sent as its id, heard at its instant) is recorded in the same transaction.
    @discardableResult
    public func acknowledge(
        _ batch: PendingBatch, told: (batchID: UUIDv7, at: Int64)? = nil, heard: ToldBatch.Heard = .acknowledged
    ) throws(StoreError) -> Int {
        try delete(batch, rejected: false, told: told, heard: heard, operation: "acknowledge batch")
    }

    /// Deletes the rows of a batch the server rejected for good (400/422), and nothing else;
    /// returns how many rows were deleted. A failed delete holds the rows, as `acknowledge` does.
    @discardableResult
    public func drop(_ batch: PendingBatch, told: (batchID: UUIDv7, at: Int64)? = nil) throws(StoreError) -> Int {
        try delete(batch, rejected: true, told: told, operation: "drop batch")
    }

    /// Records how a batch ended that left its rows pending (no 2xx heard, or a 2xx the device
    /// never heard): they go again, and the server may hold them already.
    public func record(_ told: ToldBatch) throws(StoreError) {
        try perform("record what the device was told") { connection throws(SQLiteError) in
            try insert(told, on: connection)
        }
    }

    /// Every batch the device was told the end of, in the order recorded (over the store's life).
    public func toldBatches() throws(StoreError) -> [ToldBatch] {
        try perform("read what the device was told") { connection throws(SQLiteError) in
            let read = try statement(.readTold, on: connection)
            defer { read.reset() }
            var told: [ToldBatch] = []
            while try read.step() {
                guard let batch = ToldBatch(row: read) else {
                    throw Self.unreadableRow("told", seq: Int64(told.count + 1), "not a told batch")
                }
                told.append(batch)
            }
            return told
        }
    }

    private func insert(_ told: ToldBatch, on connection: SQLiteConnection) throws(SQLiteError) {
        let insert = try statement(.insertTold, on: connection)
        try insert.bind(ToldBatch.packed([told.batchID]), at: 1)
        try insert.bind(told.heard.rawValue, at: 2)
        try insert.bind(told.at, at: 3)
        try insert.bind(ToldBatch.packed(told.fixIDs), at: 4)
        try insert.run()
    }

    /// Whether the store can write again after a failure: deletes the held rows (see
    /// `retryHeldDeletes()`), then commits a page-sized write and its removal, which fails with
    /// the same error as long as the disk is full (or the file cannot be opened).
    ///
    /// For a caller that stopped writing after a failure and polls for the disk to have room.
    public func checkWritable() throws(StoreError) {
        try retryHeldDeletes()
        try perform("check the store can write") { connection throws(SQLiteError) in
            var ledger = storedLedger
            let losses = unrecordedLosses
            try transaction(on: connection) { () throws(SQLiteError) in
                try connection.execute(
                    """
                    INSERT OR REPLACE INTO device_state (key, value)
                    VALUES ('beekon.writeProbe', hex(zeroblob(\(StoreTuning.pageSize))));
                    DELETE FROM device_state WHERE key = 'beekon.writeProbe';
                    """)
                // The losses of the failure just over go into the file with the probe.
                try add(LedgerChange(lost: losses), to: &ledger, on: connection)
            }
            storedLedger = ledger
            unrecordedLosses -= losses
        }
    }

    /// Deletes the held rows of batches whose delete failed; returns how many were deleted.
    ///
    /// Runs by itself before each `nextBatch` and with each `acknowledge` and `drop`; the fleet
    /// also calls it on its store-retry timer. Throws (keeping the rows held) while it fails.
    @discardableResult
    public func retryHeldDeletes() throws(StoreError) -> Int {
        guard !heldDeletes.isEmpty else { return 0 }
        return try delete(HeldDeletes(), operation: "delete acknowledged rows")
    }

    private func delete(
        _ batch: PendingBatch, rejected: Bool, told: (batchID: UUIDv7, at: Int64)?,
        heard: ToldBatch.Heard = .acknowledged, operation: String
    ) throws(StoreError) -> Int {
        var rows = HeldDeletes()
        rows.add(batch, rejected: rejected)
        if let told {
            rows.told.append(
                ToldBatch(
                    batchID: told.batchID, heard: rejected ? .rejected : heard, at: told.at,
                    fixIDs: batch.locations.map(\.id)))
        }
        return try delete(rows, operation: operation)
    }

    /// Deletes `rows` and the held rows, each only if it still has the seq and id it had when
    /// read, in one transaction: a row deleted meanwhile whose seq was reused by a newer row is
    /// left alone. On failure all of them are held.
    private func delete(_ batch: HeldDeletes, operation: String) throws(StoreError) -> Int {
        var rows = heldDeletes
        rows.add(batch)
        guard !rows.isEmpty else { return 0 }
        let losses = unrecordedLosses
        do throws(StoreError) {
            let deleted = try perform(operation) { connection throws(SQLiteError) in
                var tallies = self.tallies
                var ledger = storedLedger
                // One DELETE is a transaction of its own (its trigger counts it): a retry of one held
                // row needs no BEGIN and COMMIT; a batch's told row must commit with its delete.
                let needed =
                    rows.count > 1 || losses > 0 || rows.fixes.contains { $0.rejected } || !rows.told.isEmpty
                try transaction(on: connection, needed: needed) { () throws(SQLiteError) in
                    for told in rows.told { try insert(told, on: connection) }
                    var change = LedgerChange(lost: losses)
                    for (table, tableRows) in [(StoreTable.fixes, rows.fixes), (.events, rows.events)] {
                        let delete = try statement(table.deleteRow, on: connection)
                        for row in tableRows {
                            try delete.bind(row.seq, at: 1)
                            try delete.bind(row.id, at: 2)
                            try delete.run()
                            let changes = connection.changes
                            tallies[table].remove(changes)
                            if table == .fixes {
                                ledger.removed += changes
                                if row.rejected { change.rejected += changes }
                            }
                        }
                    }
                    try add(change, to: &ledger, on: connection)
                }
                let deleted =
                    (self.tallies.fixes.count - tallies.fixes.count)
                    + (self.tallies.events.count - tallies.events.count)
                self.tallies = tallies
                storedLedger = ledger
                return deleted
            }
            heldDeletes = HeldDeletes()
            unrecordedLosses -= losses
            return deleted
        } catch {
            heldDeletes = rows
            throw error
        }
    }

    /// `excluding` holds rows to pass over; the query's `Excluding` form is used
    /// only when it holds any.
    private func oldestPending(
        _ query: StoreQuery, excluding held: [HeldDeletes.Row], on connection: SQLiteConnection
    ) throws(SQLiteError) -> (sessionID: String, timestamp: Int64)? {
        let oldest = try statement(held.isEmpty ? query : query.excluding, on: connection)
        defer { oldest.reset() }
        if !held.isEmpty {
            try oldest.bind(HeldDeletes.jsonArray(held), at: 1)
        }
        guard try oldest.step() else { return nil }
        return (oldest.string(at: 0), oldest.int64(at: 1))
    }

    /// Reads a row selected with `StoreQuery.eventColumns`.
    static func readEvent(
        _ row: Statement
    ) throws(SQLiteError) -> (seq: Int64, event: GeofenceEvent) {
        let seq = row.int64(at: 0)
        let idText = row.string(at: 1)
        guard let id = UUIDv7(idText) else {
            throw unreadableRow("geofence_events", seq: seq, "id \"\(idText)\" is not a UUID")
        }
        let typeText = row.string(at: 3)
        guard let type = GeofenceEventType(rawValue: typeText) else {
            throw unreadableRow("geofence_events", seq: seq, "unknown type \"\(typeText)\"")
        }
        let event = GeofenceEvent(
            id: id, geofenceID: row.string(at: 2), type: type, timestamp: row.int64(at: 4))
        return (seq, event)
    }
}

/// The rows (seq → id, by table) of batches acknowledged or dropped whose delete failed.
///
/// Kept on the `DeviceStore` object, not its connection, so a pool closing and reopening the
/// file keeps them. A process killed while rows are held forgets them and uploads those rows
/// again after its relaunch: the ingest server dedupes by fix id, so such a re-send after a
/// crash is harmless, while a re-send in a live process is what holding them prevents.
struct HeldDeletes {
    /// A row, and whether the server refused its batch (counted as rejected, not acknowledged).
    typealias Row = (seq: Int64, id: String, rejected: Bool)

    var fixes: [Row] = []
    var events: [Row] = []
    /// What the devices were told of the batches these rows are of: recorded with their delete.
    var told: [ToldBatch] = []

    var isEmpty: Bool { fixes.isEmpty && events.isEmpty && told.isEmpty }
    var count: Int { fixes.count + events.count }

    mutating func add(_ batch: PendingBatch, rejected: Bool) {
        for (seq, fix) in zip(batch.fixRows, batch.locations) {
            fixes.append((seq, fix.id.text, rejected))
        }
        for (seq, event) in zip(batch.eventRows, batch.geofenceEvents) {
            events.append((seq, event.id.text, rejected))
        }
    }

    mutating func add(_ other: HeldDeletes) {
        fixes += other.fixes
        events += other.events
        told += other.told
    }

    /// The seqs as a JSON array, for the `Excluding` queries' `json_each` parameter.
    static func jsonArray(_ rows: [Row]) -> String { jsonArray(seqs: rows.map(\.seq)) }

    /// `seqs` as a JSON array, for a query's `json_each` parameter.
    static func jsonArray(seqs: [Int64]) -> String {
        "[" + seqs.map(String.init).joined(separator: ",") + "]"
    }
}
