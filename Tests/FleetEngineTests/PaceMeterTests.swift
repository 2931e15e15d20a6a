import Testing

@testable import FleetEngine

/// The run's pace from made-up readings: achieved warp, windowed lateness, the verdict, pauses,
/// warp changes and max warp. No clock is read.
@Suite("Pace meter")
struct PaceMeterTests {
    static let second: UInt64 = 1_000_000_000

    /// Lateness records, real ms.
    static func lateness(_ millis: [Double]) -> LatencyHistogram {
        var histogram = LatencyHistogram()
        for value in millis { histogram.record(value) }
        return histogram
    }

    /// A meter at `warp` fed `seconds` readings a second apart, each advancing virtual time by
    /// `virtualPerSecond` ms with timers `lateMillis` late.
    static func fed(
        warp: Double?, seconds: Int, virtualPerSecond: Int64, lateMillis: [Double] = []
    ) -> PaceMeter {
        var meter = PaceMeter(realNanos: 5 * second, virtualMillis: 1_000_000, warp: warp)
        for index in 1...seconds {
            meter.record(
                PaceMeter.Reading(
                    realNanos: 5 * second + UInt64(index) * second,
                    virtualMillis: 1_000_000 + Int64(index) * virtualPerSecond, lateness: lateness(lateMillis)))
        }
        return meter
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var warp: Double?
        var virtualPerSecond: Int64
        var lateMillis: [Double]
        var achieved: Double
        var behind: Bool
        var testDescription: String { name }
    }

    @Test(
        "the achieved warp is virtual ms over real ms, and the run is behind below 90 % of its warp or past 1 s late",
        arguments: [
            Case(
                name: "keeps up at 60", warp: 60, virtualPerSecond: 60_000, lateMillis: [1, 2], achieved: 60,
                behind: false),
            Case(
                name: "41 of 60 is behind", warp: 60, virtualPerSecond: 41_000, lateMillis: [], achieved: 41,
                behind: true),
            Case(
                name: "just over 90 % is not", warp: 60, virtualPerSecond: 54_100, lateMillis: [], achieved: 54.1,
                behind: false),
            Case(
                name: "just under 90 % is", warp: 60, virtualPerSecond: 53_900, lateMillis: [], achieved: 53.9,
                behind: true),
            Case(
                name: "on pace but timers 2.3 s late", warp: 60, virtualPerSecond: 60_000,
                lateMillis: [2_300, 2_300], achieved: 60, behind: true),
            Case(
                name: "timers 0.9 s late are not behind", warp: 60, virtualPerSecond: 60_000,
                lateMillis: [900, 900], achieved: 60, behind: false),
            Case(
                name: "warp 0.5 kept", warp: 0.5, virtualPerSecond: 500, lateMillis: [], achieved: 0.5,
                behind: false),
            Case(
                name: "max warp is never behind, however slow", warp: nil, virtualPerSecond: 3,
                lateMillis: [], achieved: 0.003, behind: false),
            Case(
                name: "max warp going fast", warp: nil, virtualPerSecond: 1_250_000, lateMillis: [],
                achieved: 1_250, behind: false),
        ])
    func verdicts(_ row: Case) {
        let meter = Self.fed(
            warp: row.warp, seconds: 4, virtualPerSecond: row.virtualPerSecond, lateMillis: row.lateMillis)
        let achieved = meter.pace.achievedWarp ?? -1
        #expect(abs(achieved - row.achieved) < row.achieved * 1e-9 + 1e-12, "achieved \(achieved)")
        #expect(meter.pace.behind == row.behind)
        #expect(meter.pace.warp == row.warp)
        #expect(meter.pace.behindSeconds == (row.behind ? 4 : 0))
    }

    @Test("lateness is that of the last 10 seconds: an old late second leaves the window")
    func latenessWindow() {
        var meter = PaceMeter(realNanos: 0, virtualMillis: 0, warp: 10)
        meter.record(PaceMeter.Reading(realNanos: Self.second, virtualMillis: 10_000, lateness: Self.lateness([5_000])))
        #expect(meter.pace.timerLatenessMaxMillis >= 4_950 && meter.pace.behind)
        for index in 2...PaceMeter.windowSeconds {
            meter.record(
                PaceMeter.Reading(
                    realNanos: UInt64(index) * Self.second, virtualMillis: Int64(index) * 10_000,
                    lateness: Self.lateness([3])))
            #expect(meter.pace.behind, "the 5 s late timer is still in the window at \(index) s")
        }
        // The eleventh reading starts the window after the late second.
        let next = UInt64(PaceMeter.windowSeconds + 1)
        meter.record(
            PaceMeter.Reading(
                realNanos: next * Self.second, virtualMillis: Int64(next) * 10_000, lateness: Self.lateness([3])))
        #expect(!meter.pace.behind)
        #expect(meter.pace.timerLatenessMaxMillis < 4)
        #expect(meter.pace.behindSeconds == Double(PaceMeter.windowSeconds))
    }

    @Test("the achieved warp is over the last 10 seconds only: a slow start is forgotten")
    func achievedWindow() {
        var meter = PaceMeter(realNanos: 0, virtualMillis: 0, warp: 100)
        var virtual: Int64 = 0
        // 5 seconds at 10×, then 20 at 100×.
        for index in 1...25 {
            virtual += index <= 5 ? 10_000 : 100_000
            meter.record(PaceMeter.Reading(realNanos: UInt64(index) * Self.second, virtualMillis: virtual))
            if index == 5 { #expect(meter.pace.behind && meter.pace.achievedWarp == 10) }
        }
        #expect(meter.pace.achievedWarp == 100 && !meter.pace.behind)
        #expect(meter.pace.minAchievedWarp == 10)
        // Seconds 1…13 ended with the window's warp under 90: at 13 s the window (3…13 s) holds two
        // slow seconds, (2 × 10 + 8 × 100) / 10 = 82; at 14 s one, 91.
        #expect(meter.pace.behindSeconds == 13)
    }

    @Test("a warp change starts a new window from its instant: the old warp's pace and lateness do not count")
    func warpChange() {
        var meter = Self.fed(warp: 60, seconds: 5, virtualPerSecond: 20_000, lateMillis: [3_000])
        #expect(meter.pace.behind)
        let changedAt = 10 * Self.second
        meter.restart(realNanos: changedAt, virtualMillis: 1_100_000, warp: 10, paused: false)
        #expect(!meter.pace.behind && meter.pace.achievedWarp == nil && meter.pace.warp == 10)
        #expect(meter.pace.timerLatenessP99Millis == 0)
        // Less than half a second since the change: no achieved warp yet.
        meter.record(PaceMeter.Reading(realNanos: changedAt + Self.second / 4, virtualMillis: 1_100_000))
        #expect(meter.pace.achievedWarp == nil && !meter.pace.behind)
        meter.record(PaceMeter.Reading(realNanos: changedAt + Self.second, virtualMillis: 1_110_000))
        #expect(meter.pace.achievedWarp == 10 && !meter.pace.behind)
        #expect(meter.pace.behindSeconds == 5, "the run's total is kept across the change")
    }

    @Test("paused, nothing is measured and nothing is behind; resumed, the window starts at the resume")
    func pause() {
        var meter = Self.fed(warp: 60, seconds: 3, virtualPerSecond: 60_000)
        meter.restart(realNanos: 9 * Self.second, virtualMillis: 1_180_000, warp: 60, paused: true)
        for index in 10...20 {
            meter.record(PaceMeter.Reading(realNanos: UInt64(index) * Self.second, virtualMillis: 1_180_000))
            #expect(!meter.pace.behind && meter.pace.achievedWarp == nil && meter.pace.paused)
        }
        #expect(meter.pace.progressText == nil)
        meter.restart(realNanos: 21 * Self.second, virtualMillis: 1_180_000, warp: 60, paused: false)
        meter.record(PaceMeter.Reading(realNanos: 22 * Self.second, virtualMillis: 1_240_000))
        #expect(meter.pace.achievedWarp == 60 && !meter.pace.behind && meter.pace.behindSeconds == 0)
    }

    @Test("a reading earlier than the last is ignored")
    func earlierReading() {
        var meter = Self.fed(warp: 60, seconds: 3, virtualPerSecond: 60_000)
        let before = meter.pace
        meter.record(PaceMeter.Reading(realNanos: 0, virtualMillis: 0))
        #expect(meter.pace == before)
    }

    struct Line: Sendable, CustomTestStringConvertible {
        var warp: Double?
        var virtualPerSecond: Int64
        var lateMillis: [Double]
        var expected: String?
        var testDescription: String { expected ?? "nothing at \(warp ?? 0)×" }
    }

    @Test(
        "the progress line names the pace only while behind, and always the rate at max warp",
        arguments: [
            Line(
                warp: 60, virtualPerSecond: 41_000, lateMillis: [2_300, 2_300],
                expected: "behind its warp: 41× of 60×, timers p99 2.3 s late"),
            Line(
                warp: 60, virtualPerSecond: 60_000, lateMillis: [1_500, 1_500],
                expected: "behind its warp: 60× of 60×, timers p99 1.5 s late"),
            Line(
                warp: 2, virtualPerSecond: 1_000, lateMillis: [],
                expected: "behind its warp: 1× of 2×, timers p99 0 ms late"),
            Line(warp: 60, virtualPerSecond: 60_000, lateMillis: [], expected: nil),
            Line(warp: nil, virtualPerSecond: 1_250_000, lateMillis: [], expected: "warp max: 1,250×"),
        ])
    func progressText(_ row: Line) {
        let meter = Self.fed(
            warp: row.warp, seconds: 2, virtualPerSecond: row.virtualPerSecond, lateMillis: row.lateMillis)
        #expect(meter.pace.progressText == row.expected)
    }

    @Test("before any measurement, max warp is named without a rate and a set warp says nothing")
    func unmeasured() {
        #expect(PaceMeter(realNanos: 0, virtualMillis: 0, warp: nil).pace.progressText == "warp max")
        #expect(PaceMeter(realNanos: 0, virtualMillis: 0, warp: 60).pace.progressText == nil)
    }
}
