import BeekonDevice
import FleetDescription
import Testing

@testable import FleetEngine

/// The loop's clock, schedule and roster, each alone.
@Suite("The loop's parts")
struct LoopPartsTests {
    static func fleet(clock: String) throws -> FleetFile {
        try FleetFile.parse(
            yaml: """
                name: parts
                clock: \(clock)
                groups:
                  - {name: walkers, count: 1, route: walk.csv}
                """,
            file: "fleet.yaml")
    }

    @Test(
        "the transfer timing is the option's, else the fleet file's, else chosen by the warp",
        arguments: [
            // (fleet file's clock, --warp, --timing, timing, follows the warp)
            ("{warp: 1}", nil, nil, TransferTiming.asAnswered, true),
            ("{warp: 60}", nil, nil, .deterministic, true),
            ("{warp: 1}", Warp.rate(60), nil, .deterministic, true),
            ("{warp: 60}", .rate(1), nil, .asAnswered, true),
            ("{warp: 60, timing: as-answered}", nil, nil, .asAnswered, false),
            ("{warp: 1, timing: modelled}", nil, nil, .deterministic, false),
            ("{warp: 60}", nil, TimingChoice.asAnswered, .asAnswered, false),
            ("{warp: 1}", .max, nil, .deterministic, true),
        ] as [(String, Warp?, TimingChoice?, TransferTiming, Bool)])
    func timing(clock: String, warp: Warp?, choice: TimingChoice?, timing: TransferTiming, follows: Bool) throws {
        var options = RunOptions(dataDirectory: "/nonexistent", warp: warp)
        options.timing = choice
        let made = try LoopClock(options: options, fleet: Self.fleet(clock: clock), previousClock: nil)
        #expect(made.transferTiming == timing)
        #expect(made.timingFollowsWarp == follows)
        #expect(made.startsAtMaxWarp == (warp == .max))
    }

    @Test("max warp with transfers timed as answered is refused, naming the option that fixes it")
    func maxWarpAsAnswered() throws {
        var options = RunOptions(dataDirectory: "/nonexistent", warp: .max)
        options.timing = .asAnswered
        #expect {
            try LoopClock(options: options, fleet: Self.fleet(clock: "{warp: 1}"), previousClock: nil)
        } throws: { ($0 as? RunError)?.description.contains("--timing modelled") == true }
    }

    @Test(
        "a warp set later turns transfers modelled once it leaves 1, and only when the timing follows the warp",
        arguments: [
            ("{warp: 1}", 60.0, true), ("{warp: 1}", 1.0, false), ("{warp: 1, timing: as-answered}", 60.0, false),
        ])
    func setWarp(clock: String, warp: Double, turnsModelled: Bool) throws {
        var made = try LoopClock(
            options: RunOptions(dataDirectory: "/nonexistent"), fleet: Self.fleet(clock: clock), previousClock: nil)
        #expect(made.setWarp(warp) == turnsModelled)
        #expect(made.warp == warp)
    }

    @Test("the clock's start is the run start's instant")
    func startMillis() throws {
        var made = try LoopClock(
            options: RunOptions(dataDirectory: "/nonexistent"), fleet: Self.fleet(clock: "{warp: 1}"),
            previousClock: nil)
        #expect(made.startMillis == 0)
        made.runStart = RunStart(millis: 1_780_000_000_000, reason: .fresh)
        #expect(made.startMillis == 1_780_000_000_000)
    }

    @Test("lookahead off releases every parked timer and forgets the sync target")
    func lookaheadOff() {
        var schedule = LoopSchedule()
        schedule.setLookahead(true)
        schedule.syncTarget = 500
        schedule.timers.schedule((), key: .spawn(0), at: 100)
        let parked = schedule.timers.popDue(atOrBefore: 200) { _, _ in .park(lane: 0) }
        #expect(parked == nil)
        schedule.setLookahead(false)
        #expect(schedule.syncTarget == nil)
        #expect(schedule.timers.popDue(atOrBefore: 200) { _, _ in .fire }?.deadline == 100)
    }

    @Test("the recent timer lateness is taken once, and starts again empty")
    func recentLateness() {
        var schedule = LoopSchedule()
        schedule.recentTimerLateness.record(12)
        #expect(schedule.takeRecentTimerLateness().count == 1)
        #expect(schedule.takeRecentTimerLateness().count == 0)
    }

    @Test("each group deals each platform's places in turn, from 0")
    func platformTurns() {
        var roster = DeviceRoster(installIDs: [:], routes: [:])
        let turns = [
            (0, Platform.ios), (0, .android), (0, .ios), (1, .ios), (0, .ios), (1, .android),
        ].map { roster.takeTurn(group: $0.0, platform: $0.1) }
        #expect(turns == [0, 0, 1, 0, 2, 0])
    }

    @Test("an install id an earlier run made is kept; a new one is made from the device's draws and remembered")
    func installIDs() {
        var roster = DeviceRoster(installIDs: ["walkers-0001": "kept"], routes: [:])
        var rng = SplitMix64(seed: 7)
        #expect(roster.installID(for: "walkers-0001", at: 1_000, rng: &rng) == "kept")
        var again = SplitMix64(seed: 7)
        let made = roster.installID(for: "walkers-0002", at: 1_000, rng: &rng)
        #expect(made != "kept" && UUIDv7(made) != nil)
        #expect(roster.installIDs["walkers-0002"] == made)
        var fresh = DeviceRoster(installIDs: [:], routes: [:])
        #expect(fresh.installID(for: "walkers-0002", at: 1_000, rng: &again) == made, "the same draws, the same id")
    }
}
