import BeekonDevice

/// A group's `flapping:`: each phone's network drops and comes back on its own seeded clock, as
/// a phone on the move loses and finds coverage, and a share of the drops are a handover between
/// Wi-Fi and cellular instead: the phone is never without a network, but what it had out on the
/// old one is reset and it leaves from another address.
public struct Flapping: Sendable, Hashable {
    /// The mean time the network stays up, virtual ms: each stretch an exponential draw.
    public var meanOnlineMillis: Int64
    /// The mean time it stays down after a drop, virtual ms: each an exponential draw.
    public var meanOfflineMillis: Int64
    /// The share of drops that are a handover (Wi-Fi ↔ cellular) rather than a loss.
    public var handover: Double

    public init(meanOnlineMillis: Int64, meanOfflineMillis: Int64, handover: Double) {
        self.meanOnlineMillis = meanOnlineMillis
        self.meanOfflineMillis = meanOfflineMillis
        self.handover = handover
    }

    /// What a number left out is (docs/device-model.md, "Flapping"): a phone on the move, up
    /// 20 minutes and down 45 seconds at a time, a quarter of its drops a handover.
    public static let standard = Flapping(meanOnlineMillis: 1_200_000, meanOfflineMillis: 45_000, handover: 0.25)

    /// `meanOnline`, `meanOffline`: a second to a week.
    public static let meanRange = NumberRange.integer(1_000...604_800_000, unit: "ms")
    /// `handover`: a share of the drops.
    public static let handoverRange = NumberRange(0...1)
}

/// Flapping as a group's `flapping:` or a `flapping` action writes it: any of its numbers, the
/// rest the device's group's own (`Flapping.standard`'s when its group does not flap); with
/// none at all, a `flapping` action puts the group's own back (how its fault ends).
public struct FlappingSpec: Sendable, Hashable {
    public var meanOnlineMillis: Int64?
    public var meanOfflineMillis: Int64?
    public var handover: Double?

    public init(meanOnlineMillis: Int64? = nil, meanOfflineMillis: Int64? = nil, handover: Double? = nil) {
        self.meanOnlineMillis = meanOnlineMillis
        self.meanOfflineMillis = meanOfflineMillis
        self.handover = handover
    }

    /// Nothing given: the group's own flapping (or none).
    public var isGroupDefault: Bool { self == FlappingSpec() }

    /// The flapping it describes on a device whose group has `groupFlapping` (nil: none).
    public func resolved(over groupFlapping: Flapping?) -> Flapping? {
        if isGroupDefault { return groupFlapping }
        var flapping = groupFlapping ?? .standard
        if let meanOnlineMillis { flapping.meanOnlineMillis = meanOnlineMillis }
        if let meanOfflineMillis { flapping.meanOfflineMillis = meanOfflineMillis }
        if let handover { flapping.handover = handover }
        return flapping
    }
}
