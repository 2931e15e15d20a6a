import BeekonStore

/// Where the fixes of a run went, for the fleet or one group: the stores' ledgers (see
/// `FixLedger`) added up from the run's start, with what the stores already held then.
///
/// `carriedOver + admitted == acknowledged + rejected + pending + expired + deleted + lost +
/// uninstalled`
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
    /// Batches a captive portal answered 200 (`captivePortal`), whose rows the device deleted as
    /// if the server had them: fixes a phone loses that way, never at the server. Part of
    /// `acknowledged` in the stores' ledgers.
    public var portalAcknowledgements = Resent()

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

    /// A store's install was uninstalled holding `pending` fixes: they leave the pending count
    /// for `uninstalled` (the store's own ledger never counts them: its file is left as it was).
    package mutating func uninstall(_ pending: Int) {
        ledger.pending -= pending
        ledger.uninstalled += pending
    }

    /// A store's ledger moved by `change` (pending included, as a difference).
    package mutating func add(_ change: FixLedger) {
        ledger += change
        maxPending = max(maxPending, ledger.pending)
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
        FixCounter(
            \.portalAcknowledgements.batches, member: "portalAcknowledgements", part: "batches",
            note: "Batches a captive portal answered 200 (the captivePortal fault): the device deleted their fixes "
                + "as if the server had them; a phone loses them so, and the server never sees them.",
            column: "Portal Acknowledged Batches"),
        FixCounter(
            \.portalAcknowledgements.fixes, member: "portalAcknowledgements", part: "fixes",
            column: "Portal Acknowledged Fixes",
            metric: (
                "portal_acknowledged",
                "Fixes deleted after a captive portal's 200 (the captivePortal fault): never at the server."
            )),
    ]
}
