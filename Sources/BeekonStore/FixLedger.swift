/// Where a device's admitted fixes went, as its store counts them: every fix the SDK admitted
/// and asked to store ends as exactly one of acknowledged, rejected, pending, expired, deleted,
/// lost or uninstalled, so
/// `admitted == acknowledged + rejected + pending + expired + deleted + lost + uninstalled`.
///
/// The store keeps the counts in its own file (`fix_ledger`), changed by the same commit that
/// changes the rows, so they hold after the process is killed at any instant: a fix whose insert
/// was not committed was never admitted; a batch whose delete was not committed is still pending.
/// `admitted` is what the rows and the outcomes add up to (a fix in the file was admitted): the
/// fleet checks it against its own count of the fixes it asked the stores to keep
/// (`FixAccount.unaccounted`).
public struct FixLedger: Sendable, Hashable, Codable {
    /// Fixes the device stored, or tried to store and lost.
    public var admitted = 0
    /// Fixes deleted because the server answered their batch 2xx.
    public var acknowledged = 0
    /// Fixes deleted because the server refused their batch for good (400, 422): the SDK drops them.
    public var rejected = 0
    /// Fixes in the store: not yet acknowledged (including acknowledged ones whose delete has not
    /// gone through yet, which the device does not send again).
    public var pending = 0
    /// Fixes deleted by retention: seed 04's 7 days (local-only) or the 100 000-fix cap.
    public var expired = 0
    /// Fixes deleted by the app (`deleteLocations`).
    public var deleted = 0
    /// Fixes admitted but never stored (a store failure), or gone with a deleted device.
    public var lost = 0
    /// Fixes pending in an install's store when the app was uninstalled (seed 04: uninstalling
    /// wipes the DB): never sent, as a phone's would not be. A store never counts these itself;
    /// the fleet moves an uninstalled store's pending fixes here (`FixAccount.uninstall`).
    public var uninstalled = 0

    /// Nothing admitted yet.
    public init() {}

    public init(
        admitted: Int, acknowledged: Int, rejected: Int, pending: Int, expired: Int, deleted: Int, lost: Int,
        uninstalled: Int = 0
    ) {
        self.admitted = admitted
        self.acknowledged = acknowledged
        self.rejected = rejected
        self.pending = pending
        self.expired = expired
        self.deleted = deleted
        self.lost = lost
        self.uninstalled = uninstalled
    }

    /// Admitted fixes not found in any outcome: 0 unless something miscounted.
    public var unaccounted: Int {
        admitted - (acknowledged + rejected + pending + expired + deleted + lost + uninstalled)
    }

    /// Each count of `lhs` plus the same count of `rhs`.
    public static func + (lhs: FixLedger, rhs: FixLedger) -> FixLedger {
        lhs.combined(with: rhs, by: +)
    }

    /// Each count of `lhs` minus the same count of `rhs`: what changed between two readings.
    public static func - (lhs: FixLedger, rhs: FixLedger) -> FixLedger {
        lhs.combined(with: rhs, by: -)
    }

    public static func += (lhs: inout FixLedger, rhs: FixLedger) { lhs = lhs + rhs }

    /// The members as a report or the API writes them; a record written before `uninstalled`
    /// existed reads as none.
    enum CodingKeys: String, CodingKey {
        case admitted, acknowledged, rejected, pending, expired, deleted, lost, uninstalled
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        admitted = try container.decode(Int.self, forKey: .admitted)
        acknowledged = try container.decode(Int.self, forKey: .acknowledged)
        rejected = try container.decode(Int.self, forKey: .rejected)
        pending = try container.decode(Int.self, forKey: .pending)
        expired = try container.decode(Int.self, forKey: .expired)
        deleted = try container.decode(Int.self, forKey: .deleted)
        lost = try container.decode(Int.self, forKey: .lost)
        uninstalled = try container.decodeIfPresent(Int.self, forKey: .uninstalled) ?? 0
    }

    private func combined(with other: FixLedger, by operation: (Int, Int) -> Int) -> FixLedger {
        FixLedger(
            admitted: operation(admitted, other.admitted),
            acknowledged: operation(acknowledged, other.acknowledged),
            rejected: operation(rejected, other.rejected), pending: operation(pending, other.pending),
            expired: operation(expired, other.expired), deleted: operation(deleted, other.deleted),
            lost: operation(lost, other.lost), uninstalled: operation(uninstalled, other.uninstalled))
    }
}
