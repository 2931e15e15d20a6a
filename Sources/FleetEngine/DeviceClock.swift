import BeekonDevice
import FleetDescription

/// One phone's system clock, as the SDK reads it: true (virtual) time plus an offset that drifts
/// at the phone's own rate, set to true time at each NTP sync (a jump forwards or back), and
/// moved by `clockJump` and `clockOffset`. Pure: `read` is a function of the instant, its
/// parameters drawn once from a stream of the device's own (`DeviceClock.draws`).
///
/// The SDK's timers are elapsed time (an in-process loop, WorkManager), so a jump moves what it
/// stamps, not when its timers fire: the engine arms a timer at the delay its due reading is
/// from the reading now.
struct DeviceClock: Sendable, Hashable {
    /// The offset (the reading minus true time, ms) at `anchor`.
    private(set) var anchorOffset: Int64
    /// The true instant `anchorOffset` holds at, ms: the run's start, or the last jump or set.
    private(set) var anchor: Int64
    /// How fast the clock runs, parts per billion: +50,000 gains 50 µs a second.
    let driftPPB: Int64
    /// The first NTP sync, true ms; nil without NTP.
    let firstSync: Int64?
    /// The time between NTP syncs, ms (0 without NTP).
    let syncEvery: Int64

    /// A clock `offset` ms off true time at `origin`, drifting `driftPPB`, synced from
    /// `firstSync` every `syncEvery` ms (none when nil).
    init(offset: Int64, at origin: Int64, driftPPB: Int64 = 0, firstSync: Int64? = nil, syncEvery: Int64 = 0) {
        anchorOffset = offset
        anchor = origin
        self.driftPPB = driftPPB
        self.firstSync = syncEvery > 0 ? firstSync : nil
        self.syncEvery = syncEvery
    }

    /// A device's clock for a group's `spec`, from the run's start `origin`, drawn from `draws`:
    /// its offset uniform in `offset ± spread` (whole ms), its drift uniform in `± driftPpm`
    /// (whole parts per billion), its first NTP sync uniform in the first interval. All three
    /// are drawn whatever the spec says, so one part never shifts another's draw.
    init(spec: DeviceClockSpec, origin: Int64, draws: inout SplitMix64) {
        let offset = Int64.random(
            in: (spec.offsetMillis - spec.spreadMillis)...(spec.offsetMillis + spec.spreadMillis), using: &draws)
        let drift = Int64((spec.driftPpm * 1000).rounded())
        let driftPPB = Int64.random(in: -drift...drift, using: &draws)
        let every = spec.ntpEveryMillis ?? 0
        let phase = Int64.random(in: 0..<max(every, 1), using: &draws)
        self.init(offset: offset, at: origin, driftPPB: driftPPB, firstSync: origin + phase, syncEvery: every)
    }

    /// Whether the OS stamps a fix of `platform` asked at `accuracy` with the satellites' time
    /// rather than the phone's clock: Android's GNSS fixes (`high`; `Location.getTime()`), not
    /// iOS's, nor Android's fused or network ones (docs/device-model.md).
    static func stampsSatelliteTime(platform: Platform, accuracy: AccuracyRequest?) -> Bool {
        platform == .android && accuracy == .high
    }

    /// The stream a device's clock is drawn from: derived from the run seed by the device's
    /// group and place (never from the device's own stream, so a run without `deviceClock`
    /// sends what it sent before), the same on every shard and in a resumed run.
    static func draws(seed: UInt64, group: Int, index: Int) -> SplitMix64 {
        SplitMix64(seed: seed).derived(streamKey).derived(UInt64(group)).derived(UInt64(index))
    }

    /// The key of the clocks' streams ("clock").
    static let streamKey: UInt64 = 0x63_6C6F_636B

    /// The last NTP sync at or before `time`; nil before the first, or without NTP.
    func lastSync(atOrBefore time: Int64) -> Int64? {
        guard let firstSync, time >= firstSync else { return nil }
        return firstSync + (time - firstSync) / syncEvery * syncEvery
    }

    /// The first NTP sync after `time`; nil without NTP.
    func nextSync(after time: Int64) -> Int64? {
        guard let firstSync else { return nil }
        guard time >= firstSync else { return firstSync }
        return firstSync + ((time - firstSync) / syncEvery + 1) * syncEvery
    }

    /// The reading minus true time at `time`, ms: the offset from the last jump, set or sync
    /// (0 at a sync), plus the drift since, rounded down.
    func offset(at time: Int64) -> Int64 {
        var base = anchorOffset
        var since = anchor
        // A sync at the anchor's instant came first: the jump or set made there holds.
        if let sync = lastSync(atOrBefore: time), sync > anchor {
            base = 0
            since = sync
        }
        return base + Self.drift(overMillis: time - since, ppb: driftPPB)
    }

    /// What the phone's clock reads at true `time`, Unix ms, kept to `Timestamp.inputRange`
    /// (1970 to 9999) as every instant the SDK stamps is.
    func read(_ time: Int64) -> Int64 {
        let reading = time.addingReportingOverflow(offset(at: time))
        guard !reading.overflow else { return offset(at: time) > 0 ? Timestamp.maxWritable : 0 }
        return min(max(reading.partialValue, Int64(Timestamp.inputRange.lower)), Int64(Timestamp.inputRange.upper))
    }

    /// The clock jumps `millis` at `time` (back when negative).
    mutating func jump(by millis: Int64, at time: Int64) {
        anchorOffset = offset(at: time) + millis
        anchor = time
    }

    /// The clock is set `millis` off true time at `time`.
    mutating func set(offset millis: Int64, at time: Int64) {
        anchorOffset = millis
        anchor = time
    }

    /// The least offset the clock can have had over a run of up to `span` ms from its origin,
    /// before any jump or set: what turns a stored reading into the latest true instant it can
    /// have been stamped at (the reading minus this). With NTP the drift runs at most an
    /// interval before a sync puts it back to 0.
    func leastOffset(span: Int64) -> Int64 {
        let firstRun = firstSync.map { $0 - anchor } ?? span
        var least = min(anchorOffset, anchorOffset + Self.drift(overMillis: firstRun, ppb: driftPPB))
        if firstSync != nil { least = min(least, 0, Self.drift(overMillis: syncEvery, ppb: driftPPB)) }
        return least
    }

    /// `millis × ppb / 10⁹`, rounded down, exactly (no overflow for any Int64 span).
    static func drift(overMillis millis: Int64, ppb: Int64) -> Int64 {
        let billion: Int64 = 1_000_000_000
        let (whole, rest) = Timestamp.floorDivision(millis, billion)
        return whole * ppb + Timestamp.floorDivision(rest * ppb, billion).quotient
    }
}
