internal import SQLite

/// The two tables that hold pending rows and are subject to retention.
enum StoreTable: CaseIterable {
    case fixes
    case events

    var pruneOlderThan: StoreQuery {
        switch self {
        case .fixes: .pruneFixesOlderThan
        case .events: .pruneEventsOlderThan
        }
    }

    var trimOldest: StoreQuery {
        switch self {
        case .fixes: .trimOldestFixes
        case .events: .trimOldestEvents
        }
    }

    var oldestTimestamp: StoreQuery {
        switch self {
        case .fixes: .oldestFixTimestamp
        case .events: .oldestEventTimestamp
        }
    }

    var newestTimestamp: StoreQuery {
        switch self {
        case .fixes: .newestFixTimestamp
        case .events: .newestEventTimestamp
        }
    }

    var count: StoreQuery {
        switch self {
        case .fixes: .countFixes
        case .events: .countEvents
        }
    }

    var deleteRow: StoreQuery {
        switch self {
        case .fixes: .deleteFixRow
        case .events: .deleteEventRow
        }
    }
}
