internal import SQLite

/// Row counts and oldest timestamps of a store's tables, kept in the store object so that a
/// commit that needs no pruning runs its INSERT and nothing else.
struct StoreTallies {
    var fixes = TableTally()
    var events = TableTally()

    subscript(table: StoreTable) -> TableTally {
        get {
            switch table {
            case .fixes: fixes
            case .events: events
            }
        }
        set {
            switch table {
            case .fixes: fixes = newValue
            case .events: events = newValue
            }
        }
    }
}
