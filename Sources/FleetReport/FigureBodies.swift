import BeekonStore
import FleetEngine

// The figures the admin API and the run report both show, one type each: the API writes them in
// camelCase, the report in snake_case (`APIKeyStyle`, the encoder's choice). Where the report
// describes a figure in its own words, `summary(_:)` and `notes(_:)` give them for its style.

/// Latency percentiles in milliseconds (zeros when there were none).
package struct PercentilesBody: APIBody {
    var p50: Double
    var p90: Double
    var p95: Double
    var p99: Double
    var max: Double

    package init(_ histogram: LatencyHistogram) {
        p50 = Rounding.millis(histogram.percentile(0.5))
        p90 = Rounding.millis(histogram.percentile(0.9))
        p95 = Rounding.millis(histogram.percentile(0.95))
        p99 = Rounding.millis(histogram.percentile(0.99))
        max = Rounding.millis(histogram.max)
    }

    package static let example = PercentilesBody(LatencyHistogram())
    package static let component: String? = "Percentiles"
    package static func summary(_ keys: APIKeyStyle) -> String? {
        keys == .snakeCase ? "Percentiles, ms (nearest rank, within 1 %); zeros when nothing was measured." : nil
    }
}

/// A store's ledger: where a device's admitted fixes went, as its store counts them over its whole
/// life (a device's `fixes`), and the middle of a run's account (`FixesBody`). The store's own type.
extension FixLedger: APIBody {
    package static let example = FixLedger()
    package static let summary: String? =
        "The device store's own ledger, over its whole life (every run on this data folder): admitted = "
        + "acknowledged + rejected + pending + expired + deleted + lost. Null before the store was first opened."
}

/// Where the run's fixes went (`FixAccount`), for the fleet or one group: the ledger (`Ledger`,
/// which the report shows alone), with the fixes' age at acknowledgement and the run's own counts
/// (`FixAccount.counters`).
package struct FixesBody: APIBody {
    /// `carriedOver + admitted == acknowledged + rejected + pending + expired + deleted + lost`.
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
            + "+ lost, from the device stores' own counts; unaccounted is the fleet's own count of the fixes it "
            + "handed to the stores less what they admitted (0 unless something miscounted)."
        static let notes = [
            "carried_over": APINote("Pending in the stores when the run first opened them (an earlier run's)."),
            "admitted": APINote("Admitted by the devices' gates this run: stored, or lost when the insert failed."),
            "acknowledged": APINote("Deleted after their batch was answered 2xx."),
            "rejected": APINote("Dropped after their batch was answered 400 or 422."),
            "pending": APINote("In the stores at the report's instant."),
            "expired": APINote("Deleted by retention: 7 days (local-only) or the 100,000-fix cap."),
            "deleted": APINote("Deleted by the app (`deleteLocations`)."),
            "lost": APINote("Admitted but never stored (a store failure)."),
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
        + "+ lost, counted from the device stores' own files."
    package static let notes = [
        "carriedOver": APINote("Fixes pending in the stores when this run first opened them (an earlier run's)."),
        "admitted": APINote("Fixes the devices' gates admitted this run: stored, or lost when the insert failed."),
        "acknowledged": APINote("Fixes deleted after their batch was answered 2xx."),
        "rejected": APINote("Fixes dropped after their batch was answered 400 or 422."),
        "pending": APINote("Fixes in the stores now, not yet acknowledged."),
        "expired": APINote("Fixes retention deleted: 7 days (local-only) or the 100,000-fix cap."),
        "deleted": APINote("Fixes the app deleted (`deleteLocations`)."),
        "lost": APINote("Fixes admitted but never stored (a store failure)."),
        "unaccounted": APINote(
            "Fixes the devices handed to their stores this run, as the fleet counted them, less what the stores "
                + "admitted: 0 unless something miscounted (or a store that never opened lost fixes it cannot count)."),
        "maxPending": APINote("The most fixes pending at once this run: the backlog's peak."),
        "ageAtAcknowledgementMs": APINote("Virtual ms from a fix's timestamp to its batch's acknowledgement."),
    ].merging(FixCounts.apiNotes) { own, _ in own }
}

/// Some of the run's own counts of one account (`FixAccount.counters`), written as members of the
/// object that holds them.
package struct FixCounts: Sendable {
    var values: [(counter: FixCounter, value: Int)]

    init(_ account: FixAccount, _ shown: (FixCounter) -> Bool) {
        values = FixAccount.counters.filter(shown).map { ($0, account[keyPath: $0.value]) }
    }

    /// The API's form: a counter's member, its parts in one object.
    func encodeGrouped(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MemberKey.self)
        var index = values.startIndex
        while index < values.endIndex {
            let member = values[index].counter.member
            guard values[index].counter.part != nil else {
                try container.encode(values[index].value, forKey: MemberKey(member))
                index += 1
                continue
            }
            var parts = container.nestedContainer(keyedBy: MemberKey.self, forKey: MemberKey(member))
            while index < values.endIndex, values[index].counter.member == member, let part = values[index].counter.part
            {
                try parts.encode(values[index].value, forKey: MemberKey(part))
                index += 1
            }
        }
    }

    /// Each count a member of its own: the report's `duplicates` name, else its member and part.
    func encodeFlat(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MemberKey.self)
        for (counter, value) in values { try container.encode(value, forKey: MemberKey(Self.flatName(counter))) }
    }

    static func flatName(_ counter: FixCounter) -> String {
        counter.duplicates ?? counter.member + (counter.part.map { $0.prefix(1).uppercased() + $0.dropFirst() } ?? "")
    }

    /// What the API's document says of each counter's member.
    static var apiNotes: [String: APINote] {
        Dictionary(FixAccount.counters.compactMap { counter in counter.note.map { (counter.member, APINote($0)) } }) {
            first, _ in first
        }
    }

    /// What the report's schema says of the counters `shown`, by their flat names.
    static func reportNotes(_ shown: (FixCounter) -> Bool) -> [String: APINote] {
        Dictionary(
            FixAccount.counters.filter(shown).compactMap { counter in
                counter.reportNote.map { (flatName(counter), APINote($0)) }
            }
        ) { first, _ in first }
    }

    /// A member named by the counters' table (in camelCase: the encoder's style writes it).
    struct MemberKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

/// What the fleet itself did to its requests (its limits, its timing, its pace) over the run:
/// never the server's. `GET /api/v1/stats`' `fleetHealth` and the report's `fleet_health`.
package struct FleetHealthBody: APIBody {
    var notSent: APIMap<Int>
    var heldBack: Int
    var connectionWaitMs: PercentilesBody
    var cancelledOnWire: Int
    var warpTimeouts: Int
    var answerWaitSeconds: Double
    var behindSeconds: Double

    package init(_ metrics: FleetMetrics) {
        notSent = APIMap(metrics.notSentByCause.map { ($0.key.rawValue, $0.value) })
        heldBack = metrics.heldBack
        connectionWaitMs = PercentilesBody(metrics.connectionWait)
        cancelledOnWire = metrics.cancelledOnWire
        warpTimeouts = metrics.warpTimeouts
        answerWaitSeconds = Rounding.seconds(metrics.pace.answerWaitSeconds)
        behindSeconds = Rounding.seconds(metrics.pace.behindSeconds)
    }

    package static let example = FleetHealthBody(FleetMetrics())

    package static func summary(_ keys: APIKeyStyle) -> String? {
        switch keys {
        case .camelCase: "The fleet's own doing over the run, not the server's (as the run report's `fleet_health`)."
        case .snakeCase:
            "The fleet's own doing, not the server's: requests its limits kept off the wire or held back, requests "
                + "it closed, timeouts its timing made, and real time its clock spent waiting or behind."
        }
    }

    package static func notes(_ keys: APIKeyStyle) -> [String: APINote] {
        switch keys {
        case .camelCase: apiNotes
        case .snakeCase: reportNotes
        }
    }

    private static let apiNotes = [
        "notSent": APINote(
            "Uploads never put on the wire before their device gave up, by cause: `connection-cap` "
                + "(`--max-connections`), `descriptors` (out of file descriptors)."),
        "heldBack": APINote("Requests the fleet's connection cap held back before they went out.", minimum: 0),
        "connectionWaitMs": APINote("Real ms those requests waited for a connection."),
        "cancelledOnWire": APINote("Requests on the wire closed because their device gave up on them.", minimum: 0),
        "warpTimeouts": APINote("Uploads heard as `warp-timeout` (as-answered timing above warp 1).", minimum: 0),
        "answerWaitSeconds": APINote(
            "Real seconds the clock yielded to the server's answers (modelled timing).", minimum: 0),
        "behindSeconds": APINote("Real seconds the run was behind its warp.", minimum: 0),
    ]

    private static let reportNotes = [
        "not_sent": APINote(
            "Uploads never put on the wire before their device gave up (heard as `not-sent-CAUSE`), by cause: "
                + "`connection-cap` (`--max-connections`), `descriptors` (out of file descriptors)."),
        "held_back": APINote(
            "Requests (uploads and token refreshes) the fleet's connection cap held back before they went out.",
            minimum: 0),
        "connection_wait_ms": APINote("Real ms those requests waited for a connection."),
        "cancelled_on_wire": APINote(
            "Requests on the wire closed because their device gave up on them (its timeout), as a phone's "
                + "HTTP client does.", minimum: 0),
        "warp_timeouts": APINote(
            "Uploads heard as `warp-timeout`: as-answered timing above warp 1 made the server's real time × "
                + "the warp pass the SDK's timeout.", minimum: 0),
        "answer_wait_seconds": APINote(
            "Real seconds the clock yielded to the server's answers (modelled timing waits for each real "
                + "answer) rather than falling behind.", minimum: 0),
        "behind_seconds": APINote(
            "Real seconds the run was behind its warp for its own sake (as `pace.behind_seconds`).", minimum: 0),
    ]
}
