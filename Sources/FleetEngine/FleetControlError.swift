/// Why a fleet control command was refused: a kind the admin API turns into a status, a
/// message that says what to do, and the request field at fault.
public struct FleetControlError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of refusal.
    public enum Kind: String, Sendable, Hashable {
        /// A value is wrong (a route that cannot be read, a spec the fleet cannot run).
        case badRequest
        /// What it names is not there: a device, a group.
        case notFound
        /// It clashes with what exists (a group name taken).
        case conflict
        /// The fleet is not running (it stopped, or the command timed out).
        case unavailable
    }

    /// What kind of refusal.
    public var kind: Kind
    /// What is wrong and what would be right.
    public var message: String
    /// The request field at fault (`selector.group`), when one is.
    public var field: String?

    /// A refusal.
    public init(_ kind: Kind, _ message: String, field: String? = nil) {
        self.kind = kind
        self.message = message
        self.field = field
    }

    public var description: String { message }
}
