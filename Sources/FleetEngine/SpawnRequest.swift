import BeekonDevice
import FleetDescription

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
