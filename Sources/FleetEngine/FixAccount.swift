import BeekonStore
import FleetDescription

/// Where the fixes of a run went, for the fleet or one group: the stores' ledgers (see
/// `FixLedger`) added up from the run's start, with what the stores already held then.
///
/// `carriedOver + admitted == acknowledged + rejected + pending + expired + deleted + lost`
/// (`unaccounted` is the difference, 0 unless something miscounted). The counts come from the
/// stores' own files, so a run resumed after SIGKILL starts from what was committed: its
/// carried-over fixes are the pending ones the killed run left.
public struct FixAccount: Sendable, Hashable, Codable {
    /// Fixes pending in the stores when the run first opened them (an earlier run's).
    public var carriedOver = 0
    /// Fixes the devices asked their stores to keep this run, as the fleet counted them: the
    /// stores' own `admitted` must come to the same (see `unaccounted`).
    public var handedToStores = 0
    /// This run's admitted, acknowledged, rejected, expired, deleted and lost fixes, and the
    /// fixes pending now.
    public var ledger = FixLedger()
    /// The most fixes pending at once during the run: the backlog's peak.
    public var maxPending = 0
    /// How old a fix was when its batch was acknowledged, virtual ms from its timestamp.
    public var ageAtAcknowledgement = LatencyHistogram()
    /// Batches the server answered 2xx whose answer the device never heard (its timeout, its
    /// network's loss, its process's death or its deletion through the admin API came first): the
    /// SDK keeps their fixes and sends them again (a deleted device's, when a later run resumes
    /// it), so these are duplicates the fleet caused on purpose, as a phone would.
    public var unheardAcknowledgements = Resent()

    /// Batches and the fixes in them.
    public struct Resent: Sendable, Hashable, Codable {
        public var batches = 0
        public var fixes = 0

        public init(batches: Int = 0, fixes: Int = 0) {
            self.batches = batches
            self.fixes = fixes
        }
    }

    /// Nothing yet.
    public init() {}

    /// Fixes the devices handed to their stores that the stores do not account for (or account
    /// for without having been handed them): 0 unless something miscounted, or a store that never
    /// opened lost fixes it cannot count.
    public var unaccounted: Int { handedToStores - ledger.admitted }

    /// A store opened for the first time this run, holding `ledger`: its pending fixes carry over.
    mutating func carry(_ ledger: FixLedger) {
        carriedOver += ledger.pending
        self.ledger.pending += ledger.pending
        maxPending = max(maxPending, self.ledger.pending)
    }

    /// A store's ledger moved by `change` (pending included, as a difference).
    mutating func add(_ change: FixLedger) {
        ledger += change
        maxPending = max(maxPending, ledger.pending)
    }
}

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

extension FixAccount {
    /// The run's own counts, in the order every surface lists them.
    public static let counters: [FixCounter] = [
        FixCounter(
            \.unheardAcknowledgements.batches, member: "unheardAcknowledgements", part: "batches",
            note: "Batches answered 2xx whose answer the device never heard (its timeout, network loss, process "
                + "death or deletion came first): the SDK sends their fixes again, so the server sees them twice.",
            duplicates: "unheardBatches",
            reportNote: "Batches answered 2xx whose answer the device never heard (its timeout, network loss or "
                + "process death came first): the SDK sends their fixes again, so the server sees them twice.",
            column: "Unheard Acknowledged Batches"),
        FixCounter(
            \.unheardAcknowledgements.fixes, member: "unheardAcknowledgements", part: "fixes",
            duplicates: "unheardFixes", column: "Unheard Acknowledged Fixes",
            metric: (
                "unheard_acknowledged",
                "Fixes in batches answered 2xx that the device never heard (timeout, network loss, process "
                    + "death): sent again."
            )),
    ]
}

/// How long the backlog took to drain after a fault ended (the timeline's or the API's, measured
/// alike): until as few fixes were pending as when the fault began.
public struct FaultDrain: Sendable, Hashable, Codable {
    /// The fault's number (see `TimelineFault.fault`), where it came from, and its action's name.
    public var fault: Int
    public var source: ActionSource
    public var action: FleetAction.Name
    /// When the fault began and ended, virtual Unix ms.
    public var startedAt: Int64
    public var endedAt: Int64
    /// Fixes pending (the whole fleet) when it began, and at its end.
    public var pendingBefore: Int
    public var pendingAtEnd: Int
    /// Virtual ms from its end until the backlog was back to `pendingBefore`; nil while it is not.
    public var drainMillis: Int64?

    package init(
        fault: Int, source: ActionSource, action: FleetAction.Name, startedAt: Int64, endedAt: Int64,
        pendingBefore: Int, pendingAtEnd: Int, drainMillis: Int64?
    ) {
        self.fault = fault
        self.source = source
        self.action = action
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.pendingBefore = pendingBefore
        self.pendingAtEnd = pendingAtEnd
        self.drainMillis = drainMillis
    }
}

/// A fault as it ran, from the fleet file's timeline or the admin API: when it began, how many
/// devices it took, and when it ended (nil while on without a known end, or for an action with
/// no end, such as `kill` without `for`).
public struct TimelineFault: Sendable, Hashable, Codable {
    /// Its number: its place in the fleet file's `faults:` for the timeline's; after them, by the
    /// admin action that began it, for the API's (the same on every shard, which all take it).
    public var fault: Int
    public var source: ActionSource
    public var action: FleetAction.Name
    public var startedAt: Int64
    /// When it ends: its `for` (it is undone, recovers or relaunches), known from its start, or
    /// the instant the API ended it (`DELETE /api/v1/faults/{fault}`, or its opposite action).
    public var endsAt: Int64?
    /// Devices it was applied to.
    public var applied: Int

    package init(
        fault: Int, source: ActionSource, action: FleetAction.Name, startedAt: Int64, endsAt: Int64?, applied: Int
    ) {
        self.fault = fault
        self.source = source
        self.action = action
        self.startedAt = startedAt
        self.endsAt = endsAt
        self.applied = applied
    }
}
