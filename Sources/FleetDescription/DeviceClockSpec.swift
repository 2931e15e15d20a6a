import BeekonDevice

/// A group's phone clocks (`deviceClock:`): each device's clock is off true time by an offset
/// drawn uniformly in `offset ± spread`, runs fast or slow by a rate drawn uniformly in
/// `± driftPpm`, and, with `ntp`, is set to true time every `ntpEvery` (a jump forwards or back).
/// The SDK reads this clock for fix times, `sent_at` and token expiry (seeds 03 and 05).
public struct DeviceClockSpec: Sendable, Hashable {
    /// The middle of the offsets, ms (device clock minus true time).
    public var offsetMillis: Int64
    /// How far either side of `offsetMillis` a device's offset is drawn, ms.
    public var spreadMillis: Int64
    /// How far either side of 0 a device's drift rate is drawn, parts per million.
    public var driftPpm: Double
    /// How often a device's clock is set to true time (NTP); nil: never.
    public var ntpEveryMillis: Int64?

    /// A spec with every part given (none: a clock that is exact).
    public init(offsetMillis: Int64 = 0, spreadMillis: Int64 = 0, driftPpm: Double = 0, ntpEveryMillis: Int64? = nil) {
        self.offsetMillis = offsetMillis
        self.spreadMillis = spreadMillis
        self.driftPpm = driftPpm
        self.ntpEveryMillis = ntpEveryMillis
    }

    /// A week either way, ms: as far as a phone left without a network for long runs off.
    static let week: Int64 = 604_800_000
    /// `offset`: up to a week either way.
    public static let offsetRange = NumberRange.integer(-week...week, unit: "ms")
    /// What `offset` looks like, for messages.
    public static let offsetExpected = "a duration from -7d to 7d, such as -5m, 90s or 0s"
    /// `spread`: up to a week.
    public static let spreadRange = NumberRange.integer(0...week, unit: "ms")
    /// What `spread` looks like, for messages.
    public static let spreadExpected = "a duration from 0s to 7d, such as 2m"
    /// `driftPpm`: a quartz crystal's error is tens of ppm; 500 is a badly broken one.
    public static let driftRange = NumberRange(0...500, unit: "ppm")
    /// `ntp.every`: from a minute to 30 days.
    public static let ntpEveryRange = NumberRange.integer(60_000...2_592_000_000, unit: "ms")
    /// What `ntp.every` looks like, for messages.
    public static let ntpEveryExpected = "a duration from 1m to 30d, such as 6h"

    /// `offset` as a fleet file writes it (`-5m`), ms.
    public static func readOffset(_ text: String) throws(NumberProblem) -> Int64 {
        try FleetDuration.readSigned(text, within: offsetRange, expected: offsetExpected)
    }

    /// `spread` as a fleet file writes it (`2m`), ms.
    public static func readSpread(_ text: String) throws(NumberProblem) -> Int64 {
        try FleetDuration.readSigned(text, within: spreadRange, expected: spreadExpected)
    }

    /// `ntp.every` as a fleet file writes it (`6h`), ms.
    public static func readNTPEvery(_ text: String) throws(NumberProblem) -> Int64 {
        try FleetDuration.readSigned(text, within: ntpEveryRange, expected: ntpEveryExpected)
    }

    /// `clockJump`'s `seconds`: up to a day either way.
    public static let jumpRange = NumberRange(-86_400...86_400, unit: "s")
    /// `clockOffset`'s `seconds`: up to a week either way.
    public static let setOffsetRange = NumberRange(-604_800...604_800, unit: "s")
}
