import BeekonStore
import FleetEngine

/// Where the run's fixes went (`FixAccount`), for the fleet or one group: the ledger (`Ledger`,
/// which the report shows alone), with the fixes' age at acknowledgement and the run's own counts
/// (`FixAccount.counters`).
package struct FixesBody: APIBody {
    /// `carriedOver + admitted == acknowledged + rejected + pending + expired + deleted + lost +
    /// uninstalled`.
    @dynamicMemberLookup
    struct Ledger: APIBody {
        var carriedOver: Int
        var store: FixLedger
        var unaccounted: Int
        var maxPending: Int
        /// The run's own counts the report's `duplicates` does not show.
        var counts: FixCounts

        init(_ account: FixAccount) {
            counts = FixCounts(account) { $0.duplicates == nil }
            carriedOver = account.carriedOver
            store = account.ledger
            unaccounted = account.unaccounted
            maxPending = account.maxPending
        }

        /// The store ledger's counts, as the account's own.
        subscript(dynamicMember keyPath: KeyPath<FixLedger, Int>) -> Int { store[keyPath: keyPath] }

        enum CodingKeys: CodingKey {
            case carriedOver, unaccounted, maxPending
        }

        /// `carriedOver`, the store ledger's members, the two after them, then the counts (in the
        /// report, a part is its member's name and its own): one object.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(carriedOver, forKey: .carriedOver)
            try store.encode(to: encoder)
            try container.encode(unaccounted, forKey: .unaccounted)
            try container.encode(maxPending, forKey: .maxPending)
            try counts.encodeFlat(to: encoder)
        }

        static let example = Ledger(FixAccount())
        // The report's words: the API's are `FixesBody`'s.
        static let summary: String? =
            "Where the fixes went: carried_over + admitted = acknowledged + rejected + pending + expired + deleted "
            + "+ lost + uninstalled, from the device stores' own counts; unaccounted is the fleet's own count of the "
            + "fixes it handed to the stores less what they admitted (0 unless something miscounted)."
        static let notes = [
            "carried_over": APINote("Pending in the stores when the run first opened them (an earlier run's)."),
            "admitted": APINote("Admitted by the devices' gates this run: stored, or lost when the insert failed."),
            "acknowledged": APINote("Deleted after their batch was answered 2xx."),
            "rejected": APINote("Dropped after their batch was answered 400 or 422."),
            "pending": APINote("In the stores at the report's instant."),
            "expired": APINote("Deleted by retention: 7 days (local-only) or the 100,000-fix cap."),
            "deleted": APINote("Deleted by the app (`deleteLocations`)."),
            "lost": APINote("Admitted but never stored (a store failure)."),
            "uninstalled": APINote(
                "Pending in an install's store when the app was uninstalled (a reinstall): never sent, as a phone's."),
            "max_pending": APINote("The backlog's peak: the most fixes pending at once."),
        ].merging(FixCounts.reportNotes { $0.duplicates == nil }) { own, _ in own }
    }

    var ledger: Ledger
    var ageAtAcknowledgementMs: PercentilesBody
    var counts: FixCounts

    enum CodingKeys: CodingKey {
        case ageAtAcknowledgementMs
    }

    package init(_ account: FixAccount) {
        var ledger = Ledger(account)
        ledger.counts = FixCounts(account) { _ in false }
        self.ledger = ledger
        ageAtAcknowledgementMs = PercentilesBody(account.ageAtAcknowledgement)
        counts = FixCounts(account) { _ in true }
    }

    /// The ledger's members, then the age and the run's own counts, in one object.
    package func encode(to encoder: any Encoder) throws {
        try ledger.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(ageAtAcknowledgementMs, forKey: .ageAtAcknowledgementMs)
        try counts.encodeGrouped(to: encoder)
    }

    package static let example = FixesBody(FixAccount())
    package static let component: String? = "Fixes"
    package static let summary: String? =
        "Where the run's fixes went: carriedOver + admitted = acknowledged + rejected + pending + expired + deleted "
        + "+ lost + uninstalled, counted from the device stores' own files."
    package static let notes = [
        "carriedOver": APINote("Fixes pending in the stores when this run first opened them (an earlier run's)."),
        "admitted": APINote("Fixes the devices' gates admitted this run: stored, or lost when the insert failed."),
        "acknowledged": APINote("Fixes deleted after their batch was answered 2xx."),
        "rejected": APINote("Fixes dropped after their batch was answered 400 or 422."),
        "pending": APINote("Fixes in the stores now, not yet acknowledged."),
        "expired": APINote("Fixes retention deleted: 7 days (local-only) or the 100,000-fix cap."),
        "deleted": APINote("Fixes the app deleted (`deleteLocations`)."),
        "lost": APINote("Fixes admitted but never stored (a store failure)."),
        "uninstalled": APINote(
            "Fixes pending in an install's store when the app was uninstalled (a reinstall): never sent, as a "
                + "phone's would not be."),
        "unaccounted": APINote(
            "Fixes the devices handed to their stores this run, as the fleet counted them, less what the stores "
                + "admitted: 0 unless something miscounted (or a store that never opened lost fixes it cannot count)."),
        "maxPending": APINote("The most fixes pending at once this run: the backlog's peak."),
        "ageAtAcknowledgementMs": APINote("Virtual ms from a fix's timestamp to its batch's acknowledgement."),
    ].merging(FixCounts.apiNotes) { own, _ in own }
}
