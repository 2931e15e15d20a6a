internal import SQLite

extension RetentionPolicy {
    /// The cap for `table`.
    func cap(_ table: StoreTable) -> Int {
        switch table {
        case .fixes: maxFixes
        case .events: maxEvents
        }
    }

    /// Rows with `ts` below this are past `maxAge` at `now`; nil when age does not matter.
    func cutoff(now: Int64) -> Int64? {
        guard let maxAge else { return nil }
        let (cutoff, overflow) = now.subtractingReportingOverflow(maxAge)
        return overflow ? Int64.min : cutoff
    }
}

extension DeviceStore {
    /// Adds the causes of deletes (and the losses) made in the caller's transaction to
    /// `fix_ledger`, and to `ledger`, the copy the caller keeps once the transaction commits;
    /// nothing to add runs nothing. The rows themselves the trigger counted as `removed`, which
    /// the caller adds to its copy.
    func add(
        _ change: LedgerChange, to ledger: inout StoredLedger, on connection: SQLiteConnection
    ) throws(SQLiteError) {
        guard change != LedgerChange() else { return }
        let add = try statement(.addToLedger, on: connection)
        try add.bind(change.lost, at: 1)
        try add.bind(change.rejected, at: 2)
        try add.bind(change.expired, at: 3)
        try add.bind(change.deleted, at: 4)
        try add.run()
        ledger.lost += change.lost
        ledger.rejected += change.rejected
        ledger.expired += change.expired
        ledger.deleted += change.deleted
    }

    /// Whether some table is over its cap or may hold a row older than `cutoff`.
    func needsRetention(_ tallies: StoreTallies, cutoff: Int64?) -> Bool {
        for table in StoreTable.allCases {
            let tally = tallies[table]
            if tally.count > retention.cap(table) {
                return true
            }
            if let cutoff, tally.count > 0 {
                guard let oldest = tally.oldest, oldest >= cutoff else { return true }
            }
        }
        return false
    }

    /// Deletes rows past the age limit, then the oldest rows beyond each cap; inside the
    /// caller's transaction.
    func applyRetention(
        to tallies: inout StoreTallies, cutoff: Int64?, on connection: SQLiteConnection
    ) throws(SQLiteError) {
        for table in StoreTable.allCases {
            if let cutoff, tallies[table].count > 0 {
                let oldest: Int64
                if let known = tallies[table].oldest {
                    oldest = known
                } else {
                    oldest = try oldestTimestamp(table, on: connection)
                    tallies[table].oldest = oldest
                }
                if oldest < cutoff {
                    let prune = try statement(table.pruneOlderThan, on: connection)
                    try prune.bind(cutoff, at: 1)
                    try prune.run()
                    tallies[table].remove(connection.changes)
                }
            }
            let excess = tallies[table].count - retention.cap(table)
            if excess > 0 {
                let trim = try statement(table.trimOldest, on: connection)
                try trim.bind(excess, at: 1)
                try trim.run()
                tallies[table].remove(connection.changes)
            }
            // Known again for the next commit's check, at the cost of one index lookup.
            if cutoff != nil, tallies[table].count > 0, tallies[table].oldest == nil {
                tallies[table].oldest = try oldestTimestamp(table, on: connection)
            }
        }
    }

    /// The smallest `ts` in `table` (an index lookup); only asked when the table has rows.
    private func oldestTimestamp(
        _ table: StoreTable, on connection: SQLiteConnection
    ) throws(SQLiteError) -> Int64 {
        let query = try statement(table.oldestTimestamp, on: connection)
        defer { query.reset() }
        return try query.step() ? query.int64(at: 0) : Int64.max
    }

    /// The file's `fix_ledger` row; run once, on the first open.
    func loadLedger(on connection: SQLiteConnection) throws(SQLiteError) -> StoredLedger {
        let query = try statement(.readLedger, on: connection)
        defer { query.reset() }
        guard try query.step() else {
            throw SQLiteError(.corrupt, message: "fix_ledger has no row")
        }
        return StoredLedger(
            removed: query.int(at: 0), rejected: query.int(at: 1), expired: query.int(at: 2), deleted: query.int(at: 3),
            lost: query.int(at: 4))
    }

    /// Counts both tables; run once, on the first open.
    func loadTallies(on connection: SQLiteConnection) throws(SQLiteError) -> StoreTallies {
        var tallies = StoreTallies()
        for table in StoreTable.allCases {
            let count = try statement(table.count, on: connection)
            defer { count.reset() }
            tallies[table].count = try count.step() ? count.int(at: 0) : 0
        }
        return tallies
    }
}
