/// One of the run's own counts of fixes beside the stores' ledger, described once: the API's
/// `fixes`, the run report, the CSV's fixes file, `/metrics` and the merge of shards all read
/// `FixAccount.counters`. A new count is a stored property of `FixAccount` and a row there, then
/// counted where it happens.
public struct FixCounter: Sendable {
    /// Where the account keeps it.
    public let value: WritableKeyPath<FixAccount, Int> & Sendable
    /// Its member of the API's `fixes` (camelCase; the report's encoder writes it snake_case), and
    /// its part of that member when counts share one (`unheardAcknowledgements.batches`).
    public let member: String
    public let part: String?
    /// What the API's document says of `member` (on its first row).
    public let note: String?
    /// Its member of the report's `duplicates` when it counts what the server sees twice; else the
    /// report's `fixes` shows it as `member` (and `part`).
    public let duplicates: String?
    /// What the report's schema says of it.
    public let reportNote: String?
    /// Its CSV column.
    public let column: String
    /// Its counter in `/metrics` (`beekon_fleet_fixes_NAME_total`, per group) and the help there.
    public let metric: (name: String, help: String)?

    public init(
        _ value: WritableKeyPath<FixAccount, Int> & Sendable, member: String, part: String? = nil,
        note: String? = nil, duplicates: String? = nil, reportNote: String? = nil, column: String,
        metric: (name: String, help: String)? = nil
    ) {
        self.value = value
        self.member = member
        self.part = part
        self.note = note
        self.duplicates = duplicates
        self.reportNote = reportNote
        self.column = column
        self.metric = metric
    }
}
