import Testing

@testable import FleetKit

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
}
