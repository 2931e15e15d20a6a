/// The `fix_ledger` row as stored. Deletes of fixes are counted by a trigger, in the statement
/// that makes them (so a 1-row acknowledge stays one autocommit statement); the causes other than
/// acknowledgement are added by the transaction that deletes for them. Inserts are not counted:
/// the rows in the file are.
struct StoredLedger: Sendable, Hashable {
    /// Fix rows ever deleted, for any cause (trigger).
    var removed = 0
    var rejected = 0
    var expired = 0
    var deleted = 0
    var lost = 0

    /// The ledger of a store holding `stored` fix rows: every row removed for no other cause was
    /// acknowledged, and every fix stored, removed or lost was admitted.
    func ledger(stored: Int) -> FixLedger {
        FixLedger(
            admitted: stored + removed + lost, acknowledged: removed - rejected - expired - deleted, rejected: rejected,
            pending: stored, expired: expired, deleted: deleted, lost: lost)
    }
}
