internal import SQLite

/// What a store knows about one table without asking SQLite.
struct TableTally {
    /// Rows in the table.
    var count = 0
    /// The smallest `ts`, when known (nil after deletes until it is needed again); meaningless
    /// while `count` is 0.
    var oldest: Int64?

    /// Accounts for one inserted row.
    mutating func add(_ timestamp: Int64) {
        oldest = count == 0 ? timestamp : oldest.map { min($0, timestamp) }
        count += 1
    }

    /// Accounts for `removed` deleted rows, whichever they were.
    mutating func remove(_ removed: Int) {
        count -= removed
        if removed > 0 {
            oldest = nil
        }
    }
}
