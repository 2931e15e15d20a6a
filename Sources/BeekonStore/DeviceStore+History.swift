import BeekonDevice
internal import SQLite

extension DeviceStore {
    /// Stores one admitted fix, committed before this returns, then applies retention.
    ///
    /// `sessionID` is "" when there is no session; `now` is the clock's Unix milliseconds, which
    /// the age limit counts back from.
    public func insert(_ fix: Location, sessionID: String, now: Int64) throws(StoreError) {
        try insert([.fix(fix, sessionID: sessionID)], now: now)
    }

    /// Stores one geofence crossing, committed before this returns, then applies retention.
    ///
    /// `sessionID` is "" for a crossing recorded while not tracking.
    public func insert(_ event: GeofenceEvent, sessionID: String, now: Int64) throws(StoreError) {
        try insert([.event(event, sessionID: sessionID)], now: now)
    }

    /// Stores `rows` in their order in one commit, then applies retention once: all of them
    /// are stored, or none. A single row with nothing to prune is an INSERT alone (autocommit).
    public func insert(_ rows: [StoreRow], now: Int64) throws(StoreError) {
        guard let first = rows.first else { return }
        let operation = rows.count == 1 ? first.operation : "insert \(rows.count) rows"
        try perform(operation) { connection throws(SQLiteError) in
            var tallies = self.tallies
            var ledger = storedLedger
            for row in rows { tallies[row.table].add(row.timestamp) }
            let cutoff = retention.cutoff(now: now)
            let losses = unrecordedLosses
            let pruning = needsRetention(tallies, cutoff: cutoff) || losses > 0
            try transaction(on: connection, needed: rows.count > 1 || pruning) { () throws(SQLiteError) in
                for row in rows {
                    try bound(row, on: connection).run()
                }
                guard pruning else { return }
                let stored = tallies.fixes.count
                try applyRetention(to: &tallies, cutoff: cutoff, on: connection)
                var change = LedgerChange(lost: losses)
                change.expired = stored - tallies.fixes.count
                ledger.removed += change.expired
                try add(change, to: &ledger, on: connection)
            }
            // Only after the commit: a failed write leaves the tallies and the ledger as they were.
            self.tallies = tallies
            storedLedger = ledger
            unrecordedLosses -= losses
            rowCommits += 1
        }
    }

    /// Whether `count` more rows, the oldest stamped `oldest`, can be stored at `now` without
    /// retention deleting any, and with no loss waiting to be written: such rows may wait and
    /// share one commit without changing what the device is told. False while the store has
    /// not been read since it opened (its counts are not known).
    public func storesWithoutRetention(count: Int, oldest: Int64, now: Int64) -> Bool {
        guard talliesLoaded, unrecordedLosses == 0 else { return false }
        for table in StoreTable.allCases {
            let tally = tallies[table]
            guard tally.count + count <= retention.cap(table) else { return false }
            if let cutoff = retention.cutoff(now: now) {
                guard oldest >= cutoff, tally.count == 0 || (tally.oldest.map { $0 >= cutoff } ?? false) else {
                    return false
                }
            }
        }
        return true
    }

    /// The insert statement for `row`, bound.
    private func bound(_ row: StoreRow, on connection: SQLiteConnection) throws(SQLiteError) -> Statement {
        switch row {
        case .fix(let fix, let sessionID):
            let insert = try statement(.insertFix, on: connection)
            try insert.bind(fix.timestamp, at: 1)
            try insert.bind(fix.latitude, at: 2)
            try insert.bind(fix.longitude, at: 3)
            try insert.bind(fix.accuracy, at: 4)
            try insert.bind(fix.speed, at: 5)
            try insert.bind(fix.bearing, at: 6)
            try insert.bind(fix.altitude, at: 7)
            try insert.bind(fix.id.text, at: 8)
            try insert.bind(sessionID, at: 9)
            try insert.bind(fix.trigger.rawValue, at: 10)
            try insert.bind(fix.motion.rawValue, at: 11)
            try insert.bind(fix.activity?.rawValue, at: 12)
            try insert.bind(fix.quality?.rawValue, at: 13)
            try insert.bind(fix.isMock, at: 14)
            return insert
        case .event(let event, let sessionID):
            let insert = try statement(.insertEvent, on: connection)
            try insert.bind(event.id.text, at: 1)
            try insert.bind(sessionID, at: 2)
            try insert.bind(event.geofenceID, at: 3)
            try insert.bind(event.type.rawValue, at: 4)
            try insert.bind(event.timestamp, at: 5)
            return insert
        }
    }

    /// The stored fixes with `from <= timestamp <= to`, ascending by timestamp (ties in the order
    /// they were stored).
    public func history(from: Int64, to: Int64) throws(StoreError) -> [Location] {
        try perform("read history") { connection throws(SQLiteError) in
            let query = try statement(.history, on: connection)
            defer { query.reset() }
            try query.bind(from, at: 1)
            try query.bind(to, at: 2)
            var fixes: [Location] = []
            while try query.step() {
                fixes.append(try Self.readFix(query).fix)
            }
            return fixes
        }
    }

    /// The latest timestamp of any stored fix or geofence event, or nil when the store holds
    /// neither (acknowledged rows are deleted, so this is what is still pending).
    ///
    /// A resumed run starts its clock after it, so no device stamps a row earlier than one it
    /// already holds. Each table costs one lookup at the end of its `ts` index, and none when the
    /// cached count says it is empty.
    public func newestTimestamp() throws(StoreError) -> Int64? {
        let tallies = try loadedTallies()
        return try perform("read newest timestamp") { connection throws(SQLiteError) -> Int64? in
            var newest: Int64?
            for table in StoreTable.allCases where tallies[table].count > 0 {
                let query = try statement(table.newestTimestamp, on: connection)
                defer { query.reset() }
                if try query.step(), !query.isNull(at: 0) {
                    let value = query.int64(at: 0)
                    newest = max(newest ?? value, value)
                }
            }
            return newest
        }
    }

    /// Deletes the fixes stored at or before `instant` (all of them when nil) and returns how
    /// many were deleted.
    ///
    /// A fix deleted before it was uploaded is never sent; a batch in flight that held it
    /// deletes nothing else when it is acknowledged.
    @discardableResult
    public func deleteLocations(before instant: Int64?) throws(StoreError) -> Int {
        try perform("delete locations") { connection throws(SQLiteError) in
            var ledger = storedLedger
            let losses = unrecordedLosses
            let deleted = try transaction(on: connection) { () throws(SQLiteError) in
                let delete: Statement
                if let instant {
                    delete = try statement(.deleteFixesAtOrBefore, on: connection)
                    try delete.bind(instant, at: 1)
                } else {
                    delete = try statement(.deleteAllFixes, on: connection)
                }
                try delete.run()
                let deleted = connection.changes
                ledger.removed += deleted
                try add(LedgerChange(lost: losses, deleted: deleted), to: &ledger, on: connection)
                return deleted
            }
            tallies.fixes.remove(deleted)
            storedLedger = ledger
            unrecordedLosses -= losses
            return deleted
        }
    }

    /// Reads a row selected with `StoreQuery.fixColumns`.
    static func readFix(_ row: Statement) throws(SQLiteError) -> (seq: Int64, fix: Location) {
        let seq = row.int64(at: 0)
        let idText = row.string(at: 1)
        guard let id = UUIDv7(idText) else {
            throw unreadableRow("locations", seq: seq, "id \"\(idText)\" is not a UUID")
        }
        let triggerText = row.string(at: 9)
        guard let trigger = Trigger(rawValue: triggerText) else {
            throw unreadableRow("locations", seq: seq, "unknown trigger \"\(triggerText)\"")
        }
        let motionText = row.string(at: 10)
        guard let motion = Motion(rawValue: motionText) else {
            throw unreadableRow("locations", seq: seq, "unknown motion \"\(motionText)\"")
        }
        var activity: Activity?
        if let text = row.optionalString(at: 11) {
            guard let value = Activity(rawValue: text) else {
                throw unreadableRow("locations", seq: seq, "unknown activity \"\(text)\"")
            }
            activity = value
        }
        var quality: Quality?
        if let text = row.optionalString(at: 12) {
            guard let value = Quality(rawValue: text) else {
                throw unreadableRow("locations", seq: seq, "unknown quality \"\(text)\"")
            }
            quality = value
        }
        // Stored values were normalised when the fix was made, so normalising again changes
        // nothing; only a non-finite coordinate (impossible in a REAL NOT NULL column) fails.
        guard
            let fix = Location(
                id: id, latitude: row.double(at: 3), longitude: row.double(at: 4),
                timestamp: row.int64(at: 2), accuracy: row.optionalDouble(at: 5),
                speed: row.optionalDouble(at: 6), bearing: row.optionalDouble(at: 7),
                altitude: row.optionalDouble(at: 8), quality: quality, trigger: trigger,
                motion: motion, activity: activity, isMock: row.bool(at: 13))
        else {
            throw unreadableRow("locations", seq: seq, "coordinates are not finite")
        }
        return (seq, fix)
    }
}
