/// Where one fix stands once the server's store is set beside what its device was told: the one
/// vocabulary of `verify`'s categories (the raw value is the report's key). Every fix a device of
/// the run stored or sent is in exactly one.
public enum FixVerdict: String, Sendable, Hashable, CaseIterable, Codable {
    /// Its device heard a 2xx for it, and the server holds it (✓).
    case acknowledgedStored = "acknowledged_stored"
    /// Its device heard a 2xx for it, and the server does not hold it: lost by the server.
    case lost
    /// Rejected (400/422) and not stored (✓).
    case rejectedNotStored = "rejected_not_stored"
    /// Rejected (400/422), yet the server holds it: it said no and kept it.
    case storedThoughRejected = "stored_though_rejected"
    /// Still pending on its device, not stored (expected: it goes in a later upload).
    case pendingNotStored = "pending_not_stored"
    /// Stored, though its device never heard a 2xx for it (a 2xx after its timeout, a connection
    /// lost after the commit): expected under faults; still pending on the device, or sent and
    /// since expired, deleted or uninstalled there.
    case storedUnheard = "stored_unheard"
    /// Sent without a 2xx heard, then expired or deleted on its device, and not stored (✓).
    case goneNotStored = "gone_not_stored"
    /// Deleted by its device after a captive portal's 200, and not stored: lost as a phone loses
    /// it, never the server's (the server never saw it).
    case portalDropped = "portal_dropped"
    /// Pending in an install's store when the app was uninstalled (a reinstall wipes the DB,
    /// seed 04), and not stored (✓): the fleet's own doing, as a phone's user's, never the server's.
    case uninstalledNotStored = "uninstalled_not_stored"

    /// What its device made of it last, and whether the server holds it.
    init(_ side: DeviceSide, stored: Bool) {
        switch (side, stored) {
        case (.acknowledged, true): self = .acknowledgedStored
        case (.acknowledged, false): self = .lost
        case (.rejected, false): self = .rejectedNotStored
        case (.rejected, true): self = .storedThoughRejected
        case (.pending, false): self = .pendingNotStored
        case (.pending, true), (.sentThenGone, true): self = .storedUnheard
        case (.sentThenGone, false): self = .goneNotStored
        case (.portalAcknowledged, false): self = .portalDropped
        case (.portalAcknowledged, true): self = .storedUnheard
        case (.uninstalled, false): self = .uninstalledNotStored
        case (.uninstalled, true): self = .storedUnheard
        }
    }

    /// The server's fault: counted as a problem, with examples.
    public var isProblem: Bool { self == .lost || self == .storedThoughRejected }

    /// One line for the summary.
    public var meaning: String {
        switch self {
        case .acknowledgedStored: "acknowledged and stored"
        case .lost: "acknowledged but missing (lost by the server)"
        case .rejectedNotStored: "rejected and not stored"
        case .storedThoughRejected: "stored though rejected (400/422)"
        case .pendingNotStored: "pending on the device, not stored (expected)"
        case .storedUnheard: "stored though the device never heard the 2xx (expected under faults)"
        case .goneNotStored: "sent unacknowledged, since expired or deleted on the device, not stored"
        case .portalDropped: "deleted on a captive portal's 200, never at the server (a phone loses them so)"
        case .uninstalledNotStored: "pending when its app was uninstalled (a reinstall), not stored (expected)"
        }
    }
}

/// The last word a device's store has on a fix, strongest last: an acknowledgement or rejection
/// ends it; a pending row outranks a send that was not acknowledged.
public enum DeviceSide: UInt8, Sendable, Hashable, Comparable, CaseIterable {
    /// Sent without a 2xx heard (or with one the device never heard), and no longer stored.
    case sentThenGone = 0
    case pending = 1
    /// Pending in a former install's store (`installs.json`): wiped by a reinstall, never sent
    /// by the install after it.
    case uninstalled = 2
    case rejected = 3
    case acknowledged = 4
    /// Deleted after a captive portal's 200.
    case portalAcknowledged = 5

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
