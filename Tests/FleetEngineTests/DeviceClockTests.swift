import BeekonDevice
import FleetDescription
import Testing

@testable import FleetEngine

/// `DeviceClock` alone: offset, drift and NTP jumps at exact instants, and its seeded draws.
@Suite("Device clocks")
struct DeviceClockTests {
    /// 2026-06-15T08:00:00Z, Unix ms.
    static let origin: Int64 = 1_781_510_400_000
    static let hour: Int64 = 3_600_000

    /// A clock, an instant after its origin, and what it reads then.
    struct Reading: CustomStringConvertible, Sendable {
        var name: String
        var clock: DeviceClock
        var after: Int64
        var reads: Int64
        var description: String { name }
    }

    static let readings: [Reading] = [
        Reading(name: "exact", clock: DeviceClock(offset: 0, at: origin), after: 5 * hour, reads: 5 * hour),
        Reading(
            name: "5 minutes ahead", clock: DeviceClock(offset: 300_000, at: origin), after: 1000,
            reads: 301_000),
        Reading(
            name: "5 minutes behind", clock: DeviceClock(offset: -300_000, at: origin), after: hour,
            reads: hour - 300_000),
        // 50 ppm fast gains 180 ms an hour; 50 ppm slow loses it.
        Reading(
            name: "50 ppm fast", clock: DeviceClock(offset: 0, at: origin, driftPPB: 50_000), after: hour,
            reads: hour + 180),
        Reading(
            name: "50 ppm slow", clock: DeviceClock(offset: 0, at: origin, driftPPB: -50_000), after: hour,
            reads: hour - 180),
        // Rounded down: 1 ms at -50 ppm reads 0.99995 ms, so 0.
        Reading(
            name: "rounded down", clock: DeviceClock(offset: 0, at: origin, driftPPB: -50_000), after: 1, reads: 0),
        // NTP 10 s after the origin: 2 minutes ahead until it, true time from it.
        Reading(
            name: "ahead, before its sync",
            clock: DeviceClock(offset: 120_000, at: origin, firstSync: origin + 10_000, syncEvery: 6 * hour),
            after: 9_999, reads: 129_999),
        Reading(
            name: "ahead, at its sync",
            clock: DeviceClock(offset: 120_000, at: origin, firstSync: origin + 10_000, syncEvery: 6 * hour),
            after: 10_000, reads: 10_000),
        // 100 ppm fast, synced every hour: 360 ms gained over the hour, back to 0 at the sync.
        Reading(
            name: "drifting, before the second sync",
            clock: DeviceClock(offset: 0, at: origin, driftPPB: 100_000, firstSync: origin + hour, syncEvery: hour),
            after: 2 * hour - 1, reads: 2 * hour - 1 + 359),
        Reading(
            name: "drifting, at the second sync",
            clock: DeviceClock(offset: 0, at: origin, driftPPB: 100_000, firstSync: origin + hour, syncEvery: hour),
            after: 2 * hour, reads: 2 * hour),
    ]

    @Test(
        "a clock reads true time plus its offset and its drift, and true time again at each NTP sync",
        arguments: readings)
    func reads(_ reading: Reading) {
        #expect(reading.clock.read(Self.origin + reading.after) == Self.origin + reading.reads)
    }

    @Test("NTP syncs fall every interval from the first, and the jump at each is the offset it undoes")
    func syncInstants() {
        let clock = DeviceClock(
            offset: -90_000, at: Self.origin, driftPPB: 200_000, firstSync: Self.origin + 7_000,
            syncEvery: 6 * Self.hour)
        #expect(clock.lastSync(atOrBefore: Self.origin + 6_999) == nil)
        #expect(clock.nextSync(after: Self.origin) == Self.origin + 7_000)
        #expect(clock.lastSync(atOrBefore: Self.origin + 7_000) == Self.origin + 7_000)
        #expect(clock.nextSync(after: Self.origin + 7_000) == Self.origin + 7_000 + 6 * Self.hour)
        #expect(clock.lastSync(atOrBefore: Self.origin + 13 * Self.hour) == Self.origin + 7_000 + 12 * Self.hour)
        // The first sync jumps forwards 90 s less the 1.4 ms gained; the next back the 4.32 s gained.
        let first = Self.origin + 7_000
        #expect(clock.read(first) - clock.read(first - 1) == 1 + 90_000 - 1)
        let second = first + 6 * Self.hour
        #expect(clock.read(second - 1) - (second - 1) == 4_319)
        #expect(clock.read(second) == second)
    }

    @Test("a jump moves the reading at once and holds until the next sync; a set puts the offset where asked")
    func jumpsAndSets() {
        var clock = DeviceClock(offset: 0, at: Self.origin, firstSync: Self.origin + Self.hour, syncEvery: Self.hour)
        clock.jump(by: -600_000, at: Self.origin + 60_000)
        #expect(clock.read(Self.origin + 60_000) == Self.origin + 60_000 - 600_000)
        #expect(clock.read(Self.origin + Self.hour - 1) == Self.origin + Self.hour - 1 - 600_000)
        #expect(clock.read(Self.origin + Self.hour) == Self.origin + Self.hour)
        clock.set(offset: 300_000, at: Self.origin + Self.hour + 5)
        #expect(clock.read(Self.origin + Self.hour + 5) == Self.origin + Self.hour + 300_005)
        #expect(clock.read(Self.origin + 2 * Self.hour) == Self.origin + 2 * Self.hour)
        // Jumps add up: the second starts from where the first left the clock.
        var twice = DeviceClock(offset: 1_000, at: Self.origin)
        twice.jump(by: 2_000, at: Self.origin + 10)
        twice.jump(by: -500, at: Self.origin + 20)
        #expect(twice.read(Self.origin + 30) == Self.origin + 30 + 2_500)
    }

    @Test("readings stay within Timestamp.inputRange, 1970 to 9999")
    func readingsStayInRange() {
        let early = DeviceClock(offset: -604_800_000, at: 1_000)
        #expect(early.read(1_000) == 0)
        let late = DeviceClock(offset: 604_800_000, at: Timestamp.maxWritable - 10)
        #expect(late.read(Timestamp.maxWritable - 10) == Timestamp.maxWritable)
    }

    @Test("drift over a long span is exact, whatever its sign")
    func driftIsExact() {
        let year: Int64 = 31_622_400_000
        #expect(DeviceClock.drift(overMillis: year, ppb: 500_000) == 15_811_200)
        #expect(DeviceClock.drift(overMillis: year, ppb: -500_000) == -15_811_200)
        #expect(DeviceClock.drift(overMillis: -1, ppb: 1) == -1)
        #expect(DeviceClock.drift(overMillis: .max, ppb: 0) == 0)
    }

    @Test("a group's clocks are drawn in range from each device's own stream: the same device, the same clock")
    func drawsFromTheSpec() {
        let spec = DeviceClockSpec(
            offsetMillis: 300_000, spreadMillis: 120_000, driftPpm: 50, ntpEveryMillis: 6 * Self.hour)
        var offsets: Set<Int64> = []
        for index in 0..<200 {
            var draws = DeviceClock.draws(seed: 7, group: 1, index: index)
            let clock = DeviceClock(spec: spec, origin: Self.origin, draws: &draws)
            let offset = clock.offset(at: Self.origin)
            #expect((180_000...420_000).contains(offset))
            #expect((-50_000...50_000).contains(clock.driftPPB))
            #expect(clock.firstSync.map { (Self.origin..<Self.origin + 6 * Self.hour).contains($0) } == true)
            var again = DeviceClock.draws(seed: 7, group: 1, index: index)
            #expect(DeviceClock(spec: spec, origin: Self.origin, draws: &again) == clock)
            offsets.insert(offset)
        }
        #expect(offsets.count > 150, "the offsets are not spread")
        var other = DeviceClock.draws(seed: 8, group: 1, index: 0)
        var same = DeviceClock.draws(seed: 7, group: 1, index: 0)
        #expect(
            DeviceClock(spec: spec, origin: Self.origin, draws: &other)
                != DeviceClock(spec: spec, origin: Self.origin, draws: &same))
        // Without NTP, no sync; a fixed offset with no spread is that offset.
        var fixed = DeviceClock.draws(seed: 7, group: 0, index: 3)
        let exact = DeviceClock(spec: DeviceClockSpec(offsetMillis: -300_000), origin: Self.origin, draws: &fixed)
        #expect(exact.firstSync == nil && exact.read(Self.origin) == Self.origin - 300_000)
    }

    @Test("the least offset a clock can have had bounds what its readings say of true time")
    func leastOffset() {
        let ahead = DeviceClock(offset: 300_000, at: 0)
        #expect(ahead.leastOffset(span: Self.hour) == 300_000)
        let slow = DeviceClock(offset: 300_000, at: 0, driftPPB: -100_000)
        #expect(slow.leastOffset(span: Self.hour) == 300_000 - 360)
        // With NTP, the offset is back to 0 at each sync and drifts at most an interval from there.
        let synced = DeviceClock(offset: 300_000, at: 0, driftPPB: -100_000, firstSync: 1000, syncEvery: Self.hour)
        #expect(synced.leastOffset(span: 366 * 24 * Self.hour) == -360)
    }
}
