import BeekonDevice

extension DeviceStore {
    /// Stored fixes not yet acknowledged (uploaded fixes are deleted), from the cached count.
    public func pendingCount() throws(StoreError) -> Int {
        try loadedTallies().fixes.count
    }

    /// Stored geofence events not yet acknowledged, from the cached count.
    public func pendingEventCount() throws(StoreError) -> Int {
        try loadedTallies().events.count
    }

    /// The next upload: the session of the oldest pending row (fixes and geofence events
    /// together, by timestamp, a fix before an event at the same instant), up to `limit` of that
    /// session's oldest fixes, and all of its geofence events. Nil when nothing is pending.
    ///
    /// A batch never mixes sessions. `limit` below 1 is taken as 1.
    public func nextBatch(limit: Int) throws(StoreError) -> PendingBatch? {
        let tallies = try loadedTallies()
        guard tallies.fixes.count > 0 || tallies.events.count > 0 else { return nil }
        return try perform("read next batch") { connection throws(SQLiteError) in
            // The cached tallies say which tables hold anything: an empty one is not queried.
            let oldestFix = tallies.fixes.count > 0 ? try oldestPending(.oldestPendingFix, on: connection) : nil
            let oldestEvent = tallies.events.count > 0 ? try oldestPending(.oldestPendingEvent, on: connection) : nil
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

            let fixQuery = try statement(.sessionFixes, on: connection)
            defer { fixQuery.reset() }
            try fixQuery.bind(sessionID, at: 1)
            try fixQuery.bind(max(limit, 1), at: 2)
            var locations: [Location] = []
            var fixSeqs: [Int64] = []
            while oldestFix != nil, try fixQuery.step() {
                let row = try Self.readFix(fixQuery)
                locations.append(row.fix)
                fixSeqs.append(row.seq)
            }

            let eventQuery = try statement(.sessionEvents, on: connection)
            defer { eventQuery.reset() }
            try eventQuery.bind(sessionID, at: 1)
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

    /// Deletes the rows of a batch the server accepted (2xx), and nothing else; returns how many
    /// rows were deleted (fewer than the batch holds if some were deleted meanwhile).
    @discardableResult
    public func acknowledge(_ batch: PendingBatch) throws(StoreError) -> Int {
        try delete(batch, operation: "acknowledge batch")
    }

    /// Deletes the rows of a batch the server rejected for good (400/422), and nothing else;
    /// returns how many rows were deleted.
    @discardableResult
    public func drop(_ batch: PendingBatch) throws(StoreError) -> Int {
        try delete(batch, operation: "drop batch")
    }

    /// Deletes each of the batch's rows that still has the seq and id it had when read, in one
    /// transaction: a row deleted meanwhile whose seq was reused by a newer row is left alone.
    private func delete(_ batch: PendingBatch, operation: String) throws(StoreError) -> Int {
        guard !batch.isEmpty else { return 0 }
        return try perform(operation) { connection throws(SQLiteError) in
            var tallies = self.tallies
            // One DELETE is a transaction of its own: a 1-row batch (the usual 1-fix upload)
            // needs no BEGIN and COMMIT around it.
            let rows = batch.fixRows.count + batch.eventRows.count
            try transaction(on: connection, needed: rows > 1) { () throws(SQLiteError) in
                let deleteFix = try statement(.deleteFixRow, on: connection)
                for (seq, fix) in zip(batch.fixRows, batch.locations) {
                    try deleteFix.bind(seq, at: 1)
                    try deleteFix.bind(fix.id.text, at: 2)
                    try deleteFix.run()
                    tallies.fixes.remove(connection.changes)
                }
                let deleteEvent = try statement(.deleteEventRow, on: connection)
                for (seq, event) in zip(batch.eventRows, batch.geofenceEvents) {
                    try deleteEvent.bind(seq, at: 1)
                    try deleteEvent.bind(event.id.text, at: 2)
                    try deleteEvent.run()
                    tallies.events.remove(connection.changes)
                }
            }
            let deleted =
                (self.tallies.fixes.count - tallies.fixes.count)
                + (self.tallies.events.count - tallies.events.count)
            self.tallies = tallies
            return deleted
        }
    }

    /// The session and timestamp of the oldest row a query of `oldestPending*` finds.
    private func oldestPending(
        _ query: StoreQuery, on connection: SQLiteConnection
    ) throws(SQLiteError) -> (sessionID: String, timestamp: Int64)? {
        let oldest = try statement(query, on: connection)
        defer { oldest.reset() }
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
