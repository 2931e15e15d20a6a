internal import SQLite

/// Causes of deleted fix rows, and losses, that one transaction adds to `fix_ledger`.
struct LedgerChange: Hashable {
    var lost = 0
    var rejected = 0
    var expired = 0
    var deleted = 0
}
