import Testing

@testable import FleetEngine

@Suite("Fleet clock")
struct FleetClockTests {
    static let start: Int64 = 1_781_526_896_789
    static let second: UInt64 = 1_000_000_000

    @Test("warp 1 is real time; warp 60 is an hour a minute", arguments: [1.0, 60, 0.5])
    func warp(warp: Double) {
        let clock = FleetClock(startMillis: Self.start, warp: warp, realNanos: 5 * Self.second)
        #expect(clock.now(realNanos: 5 * Self.second) == Self.start)
        #expect(clock.now(realNanos: 65 * Self.second) == Self.start + Int64(60_000 * warp))
        #expect(clock.realWait(until: Self.start + 60_000, from: 5 * Self.second) == UInt64(60 / warp * 1e9))
    }

    @Test(
        "the real reading at which the clock reaches an instant is the inverse of now, across a warp change",
        arguments: [1.0, 60, 0.5, 3000, 0.01])
    func realReadingReaching(warp: Double) {
        var clock = FleetClock(startMillis: Self.start, warp: 7, realNanos: 5 * Self.second)
        clock.setWarp(warp, realNanos: 6 * Self.second)
        // An instant the clock had passed when the warp changed reads as that change.
        #expect(clock.realNanos(reaching: Self.start) == 6 * Self.second)
        for offset: Int64 in [7_000, 7_001, 9_999, 3_600_000] {
            let reading = clock.realNanos(reaching: Self.start + offset)
            #expect(clock.now(realNanos: reading) == Self.start + offset)
            let exact = 6e9 + Double(offset - 7_000) / warp * 1e6
            #expect(abs(Double(reading) - exact) <= 1_000, "\(reading) is not the reading \(exact)")
        }
    }

    @Test("changing the warp keeps the virtual time reached so far")
    func changeWarp() {
        var clock = FleetClock(startMillis: Self.start, warp: 1, realNanos: 0)
        clock.setWarp(60, realNanos: 10 * Self.second)
        #expect(clock.now(realNanos: 10 * Self.second) == Self.start + 10_000)
        #expect(clock.now(realNanos: 11 * Self.second) == Self.start + 70_000)
    }

    @Test("a paused clock stands still and has no real wait")
    func pause() {
        var clock = FleetClock(startMillis: Self.start, warp: 10, realNanos: 0)
        clock.setPaused(true, realNanos: 2 * Self.second)
        #expect(clock.now(realNanos: 100 * Self.second) == Self.start + 20_000)
        #expect(clock.realWait(until: Self.start + 30_000, from: 100 * Self.second) == nil)
        clock.setPaused(false, realNanos: 100 * Self.second)
        #expect(clock.now(realNanos: 101 * Self.second) == Self.start + 30_000)
    }

    @Test("a deadline already passed needs no wait")
    func pastDeadline() {
        let clock = FleetClock(startMillis: Self.start, warp: 1, realNanos: 0)
        #expect(clock.realWait(until: Self.start - 5, from: 0) == 0)
    }

    @Test(
        "a clock further ahead of the time reached than 100 ms of real time drops the lag, and only then",
        arguments: [
            // warp, real seconds since start, virtual ms reached after start, dropped ms
            (60.0, 10, 600_000, 0 as Int64),  // caught up
            (60, 10, 594_000, 0),  // 6 s behind at warp 60 is 100 ms of real time: kept
            (60, 10, 593_999, 6_001),  // one ms more is dropped
            (10_000, 1, 0, 10_000_000),  // a huge warp whose loop reached nothing
            (0.5, 100, 0, 50_000),
        ])
    func dropLag(warp: Double, realSeconds: UInt64, reachedAfterStart: Int64, dropped: Int64) {
        var clock = FleetClock(startMillis: Self.start, warp: warp, realNanos: 0)
        let reached = Self.start + reachedAfterStart
        #expect(clock.dropLag(reached: reached, realNanos: realSeconds * Self.second) == dropped)
        let expectedNow = dropped > 0 ? reached : Self.start + Int64(Double(realSeconds) * 1000 * warp)
        #expect(clock.now(realNanos: realSeconds * Self.second) == expectedNow)
        // From there the clock runs at its warp again.
        #expect(clock.now(realNanos: (realSeconds + 1) * Self.second) == expectedNow + Int64(1000 * warp))
    }

    @Test(
        "a pause or a warp change starts from the time reached when the clock ran ahead of it",
        arguments: [
            // reached ms after start (the clock reads 100 000 at warp 10 after 10 s), dropped
            (100_000 as Int64, 0 as Int64), (40_000, 60_000), (120_000, 0),
        ])
    func pauseAndWarpFromReached(reachedAfterStart: Int64, dropped: Int64) {
        let reached = Self.start + reachedAfterStart
        let standing = min(reached, Self.start + 100_000)
        var paused = FleetClock(startMillis: Self.start, warp: 10, realNanos: 0)
        #expect(paused.setPaused(true, realNanos: 10 * Self.second, reached: reached) == dropped)
        #expect(paused.now(realNanos: 1000 * Self.second) == standing)
        var slowed = FleetClock(startMillis: Self.start, warp: 10, realNanos: 0)
        #expect(slowed.setWarp(1, realNanos: 10 * Self.second, reached: reached) == dropped)
        #expect(slowed.now(realNanos: 11 * Self.second) == standing + 1000)
    }

    @Test(
        "a warp outside the range is taken to its nearest bound, and NaN to real time",
        arguments: [
            (0.0, 0.01), (-1, 0.01), (.leastNonzeroMagnitude, 0.01), (1e300, 10_000), (.infinity, 10_000), (.nan, 1),
            (60, 60),
        ])
    func warpBounds(given: Double, used: Double) {
        var clock = FleetClock(startMillis: Self.start, warp: given, realNanos: 0)
        #expect(clock.warp == used)
        clock.setWarp(given, realNanos: Self.second)
        #expect(clock.warp == used)
        #expect(FleetClock.warpRange.contains(given) == (given == used))
    }

    @Test("a deadline far in the future is waited for in steps of at most a day")
    func farDeadline() {
        let clock = FleetClock(startMillis: 0, warp: 0.01, realNanos: 0)
        #expect(clock.realWait(until: Int64.max, from: 0) == 86_400 * Self.second)
    }
}
