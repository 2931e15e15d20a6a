import BeekonDevice

/// A group's `doze:`: Android's deep Doze as AOSP's `DeviceIdleController` runs it. A phone still
/// for `afterMillis` goes idle: apps lose the network (the phone keeps it) and location comes
/// coarser, but for maintenance windows `windowMillis` long after idle stretches of 1 h, 2 h,
/// 4 h, then 6 h each; the phone moving ends it. Seed 02: "expect coarser update cadence during
/// deep doze". iOS phones do not doze.
public struct Doze: Sendable, Hashable {
    /// How long the phone must be still before it goes idle, virtual ms (AOSP: 30 minutes).
    public var afterMillis: Int64
    /// How long each maintenance window lasts, virtual ms (AOSP: 5 minutes).
    public var windowMillis: Int64

    public init(afterMillis: Int64 = Doze.aosp.afterMillis, windowMillis: Int64 = Doze.aosp.windowMillis) {
        self.afterMillis = afterMillis
        self.windowMillis = windowMillis
    }

    /// AOSP's defaults (`DeviceIdleController`'s INACTIVE_TIMEOUT and IDLE_PENDING_TIMEOUT).
    public static let aosp = Doze(afterMillis: 1_800_000, windowMillis: 300_000)

    /// The first idle stretch, then each doubled up to the last (IDLE_TIMEOUT, IDLE_FACTOR,
    /// MAX_IDLE_TIMEOUT).
    public static let firstIdleMillis: Int64 = 3_600_000
    public static let longestIdleMillis: Int64 = 21_600_000
    /// While idle the location provider delivers a fix at most this often (the project's
    /// choice for seed 02's "coarser update cadence").
    public static let idleCadenceMillis: Int64 = 300_000

    /// `after`: a minute to a day.
    public static let afterRange = NumberRange.integer(60_000...86_400_000, unit: "ms")
    /// `window`: ten seconds to an hour.
    public static let windowRange = NumberRange.integer(10_000...3_600_000, unit: "ms")
}

/// Doze as a `doze` action writes it: any of its numbers, the rest the device's group's own
/// (AOSP's when its group has none); with none at all, the group's own again (how its fault ends).
public struct DozeSpec: Sendable, Hashable {
    public var afterMillis: Int64?
    public var windowMillis: Int64?

    public init(afterMillis: Int64? = nil, windowMillis: Int64? = nil) {
        self.afterMillis = afterMillis
        self.windowMillis = windowMillis
    }

    public var isGroupDefault: Bool { self == DozeSpec() }

    /// The doze it describes on a device whose group has `groupDoze` (nil: none).
    public func resolved(over groupDoze: Doze?) -> Doze? {
        if isGroupDefault { return groupDoze }
        var doze = groupDoze ?? .aosp
        if let afterMillis { doze.afterMillis = afterMillis }
        if let windowMillis { doze.windowMillis = windowMillis }
        return doze
    }
}
