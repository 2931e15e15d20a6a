import BeekonDevice
import FleetDescription

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

/// Devices to add to a running fleet.
public struct SpawnRequest: Sendable {
    /// What the new devices are copies of.
    public enum Template: Sendable {
        /// Copies of an existing group's template (the group grows).
        case group(String)
        /// A new group, written as in a fleet file; all of its `count` devices are spawned.
        case spec(DeviceGroup)
    }

    /// What the new devices are copies of.
    public var template: Template
    /// How many (for `group`; a spec says its own count).
    public var count: Int
    /// At most this many spawn each real second; nil spawns them all at once.
    public var ratePerSecond: Double?

    /// `count` of one request (a spec's count too).
    public static let countRange = NumberRange.integer(1...10_000, unit: "devices")
    /// `ratePerSecond`.
    public static let rateRange = NumberRange(0.01...10_000, unit: "devices a second")

    /// A spawn request.
    public init(template: Template, count: Int, ratePerSecond: Double? = nil) {
        self.template = template
        self.count = count
        self.ratePerSecond = ratePerSecond
    }
}
