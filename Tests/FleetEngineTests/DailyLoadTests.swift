import BeekonDevice
import FleetTestSupport
import Foundation
import Testing

@testable import FleetDescription
@testable import FleetEngine
@testable import FleetRuntime

/// The load over a day and new installs: `daily:` brings a group's running devices to its curve
/// every local hour, ramped between, day after day on the virtual clock (`StagePlan` with a
/// period); `arrivals:` makes new installs as a seeded Poisson process, the same on every shard.
@Suite("A day of load and new installs")
struct DailyLoadTests {
    static let hours =
        "[0, 0, 0, 0, 0, 0, 0.25, 0.5, 1, 1, 0.75, 0.5, 0.5, 0.75, 1, 1, 0.75, 0.5, 0.25, 0.25, 0, 0, 0, 0]"
    static let shares: [Double] = [
        0, 0, 0, 0, 0, 0, 0.25, 0.5, 1, 1, 0.75, 0.5, 0.5, 0.75, 1, 1, 0.75, 0.5, 0.25, 0.25, 0, 0, 0, 0,
    ]

    static func yaml(daily: String = "", arrivals: String = "", count: Int = 4, autoStart: Bool = true) -> String {
        """
        name: daily
        seed: 5
        clock: {start: 2026-06-15T08:00:00Z, warp: 60}
        \(daily)
        groups:
          - name: walkers
            count: \(count)
            platform: android
            route: walk.csv
            pace: walk
            autoStart: \(autoStart)
        \(arrivals)
            config:
              preset: saver
              sync: {syncThreshold: 20, intervalSeconds: 900}
        """
    }

    /// Running devices (spawned, not standing by) of the fleet.
    static func running(_ fleet: SimulatedFleet) -> Int {
        fleet.engine.slots.count { $0.device != nil && !$0.standingBy && !$0.removed }
    }

    @Test("a day's plan: each local hour's count at its start, a line to the next, the same every day")
    func plan() {
        let curve = DailyCurve(utcOffsetMillis: 3_600_000, shares: Self.shares)
        let hour = DailyCurve.hourMillis
        // Starts at 09:00 local (08:00 UTC); local midnight is 9 h before.
        let start: Int64 = 1_781_510_400_000
        let plan = StagePlan(daily: curve, count: 4, from: start)
        for day in 0..<3 {
            for local in 0..<24 {
                let at = start - 9 * hour + Int64(day * 24 + local) * hour
                #expect(plan.target(at: at) == curve.devices(hour: local, of: 4), "day \(day) hour \(local)")
            }
        }
        // 07:00 → 08:00 ramps 2 → 4: a step half way through the hour, the next at its end.
        let seven = start - 2 * hour
        #expect(plan.target(at: seven + hour / 2 - 1) == 2 && plan.target(at: seven + hour / 2) == 3)
        #expect(plan.nextChange(after: seven) == seven + hour / 2)
        #expect(plan.nextChange(after: seven + hour / 2) == seven + hour)
        // 09:00 → 10:00 ramps 4 → 3: counted down from the start, the step comes at the hour's end.
        #expect(plan.target(at: start + hour - 1) == 4 && plan.nextChange(after: start) == start + hour)
        // 19:00 → 20:00 ramps 1 → 0; then nothing changes until 05:00 → 06:00 ramps 0 → 1 the next day.
        let nineteen = start + 10 * hour
        #expect(plan.nextChange(after: nineteen) == nineteen + hour)
        #expect(plan.nextChange(after: nineteen + hour) == nineteen + 10 * hour + hour)
        // Before the first day, as the same day: midnight minus an hour is 23:00's count.
        #expect(plan.target(at: start - 10 * hour) == curve.devices(hour: 23, of: 4))
        // A flat day never changes.
        let flat = StagePlan(daily: DailyCurve(shares: Array(repeating: 0.5, count: 24)), count: 4, from: start)
        #expect(flat.target(at: start) == 2 && flat.nextChange(after: start) == nil)
    }

    @Test(
        """
        over two days the running devices equal the curve at every hour boundary, local time; scaled-down \
        devices stand by and come back as the curve rises, and every fix is accounted for
        """)
    func twoDays() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let daily = "daily: {utcOffset: \"+01:00\", hours: \(Self.hours)}"
        var fleet = try workspace.simulated(Self.yaml(daily: daily), timing: .deterministic)
        let start = fleet.engine.clock.startMillis
        let curve = try #require(fleet.engine.fleet.daily)
        var counts: [Int] = []
        for hour in 0...48 {
            fleet.advance(to: start + Int64(hour) * DailyCurve.hourMillis)
            let local = (9 + hour) % 24
            counts.append(Self.running(fleet))
            #expect(Self.running(fleet) == curve.devices(hour: local, of: 4), "hour \(hour) (local \(local):00)")
            #expect(fleet.engine.targetDevices == curve.devices(hour: local, of: 4))
        }
        #expect(Set(counts) == [0, 1, 2, 3, 4])
        // The most the curve wants is made once: those scaled down stand by and start again.
        #expect(fleet.engine.slots.count == 4)
        let metrics = fleet.engine.snapshot()
        #expect(metrics.fixes.unaccounted == 0 && metrics.fixes.ledger.lost == 0)
        #expect(metrics.fixes.ledger.admitted > 100)
    }

    /// The arrivals of `perHour` for group 0 of a run with `seed` from `start` until `until`: the
    /// process's own instants.
    static func expectedArrivals(
        seed: UInt64, perHour: Double, start: Int64, until: Int64, group: Int = 0
    ) -> [Int64] {
        var process = ArrivalProcess(
            Arrivals(perHour: perHour, untilMillis: until), seed: seed, group: group, start: start)!
        var instants: [Int64] = []
        var at = start
        while let next = process.next(after: at) {
            instants.append(next)
            at = next
        }
        return instants
    }

    @Test("the arrivals' gaps are exponential: their mean and the count in a window are a Poisson process's")
    func process() {
        let instants = Self.expectedArrivals(seed: 5, perHour: 3_600, start: 0, until: 100 * DailyCurve.hourMillis)
        // 360,000 expected; a Poisson count's standard deviation is 600.
        #expect(abs(instants.count - 360_000) < 3_000, "\(instants.count)")
        #expect(instants.allSatisfy { $0 < 100 * DailyCurve.hourMillis })
        #expect(zip(instants, instants.dropFirst()).allSatisfy { $0 < $1 })
        // The same seed draws the same; another seed or group another.
        #expect(
            Self.expectedArrivals(seed: 5, perHour: 60, start: 0, until: 7_200_000).count
                == Self.expectedArrivals(seed: 5, perHour: 60, start: 0, until: 7_200_000).count)
        #expect(ArrivalProcess(Arrivals(perHour: 0), seed: 5, group: 0, start: 0) == nil)
    }

    @Test(
        """
        arrivals of 60 an hour for 2 hours make the seed's exact count of new installs, each with its own \
        id, install id and store, and the same ids over 1, 2 and 3 shards
        """)
    func arrivals() throws {
        let arrivals = "    arrivals: {perHour: 60, until: 2h}"
        var made: [[String]] = []
        var installs: [[String: String]] = []
        for shards in 1...3 {
            var ids: [String] = []
            var installIDs: [String: String] = [:]
            for shard in try Shard.all(shards) {
                let workspace = try Workspace()
                defer { workspace.cleanUp() }
                var options = RunOptions(
                    dataDirectory: workspace.data, ingest: "http://ingest.invalid/ingest",
                    routeFolder: workspace.folder.path, transferTiming: .deterministic)
                options.shard = shard
                var fleet = try SimulatedFleet(
                    fleet: try workspace.fleet(Self.yaml(arrivals: arrivals, count: 1, autoStart: false)),
                    options: options,
                    network: { _ in .ok })
                let start = fleet.engine.clock.startMillis
                let expected = Self.expectedArrivals(
                    seed: 5, perHour: 60, start: start, until: 2 * DailyCurve.hourMillis)
                fleet.advance(to: start + 2 * DailyCurve.hourMillis + 60_000)
                // Every shard passes over every place: the group has the same count on each.
                #expect(fleet.engine.fleet.groups[0].count == 1 + expected.count)
                for slot in fleet.engine.slots {
                    ids.append(slot.id)
                    installIDs[slot.id] = fleet.engine.roster.installIDs[slot.id]
                    // A new install runs from its arrival: spawned then, with its own store.
                    #expect(slot.device != nil && !slot.standingBy)
                    if slot.identity.indexInGroup > 0 {
                        #expect(slot.world.setOffAt == expected[slot.identity.indexInGroup - 1])
                    }
                }
                if shards == 1 {
                    #expect((90...150).contains(expected.count), "\(expected.count) arrivals")
                    let metrics = fleet.engine.snapshot()
                    #expect(metrics.fixes.unaccounted == 0 && metrics.fixes.ledger.lost == 0)
                }
            }
            made.append(ids.sorted())
            installs.append(installIDs)
        }
        #expect(made[0].count > 90 && Set(made[0]).count == made[0].count)
        #expect(made[1] == made[0] && made[2] == made[0])
        #expect(installs[1] == installs[0] && installs[2] == installs[0])
        #expect(Set(installs[0].values).count == made[0].count, "every install its own id")
    }

    @Test("a group spawned from the admin API with arrivals has them from its spawn on, keyed by its group")
    func spawnedArrivals() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        var fleet = try workspace.simulated(Self.yaml(count: 1, autoStart: false), timing: .deterministic)
        let spawned = fleet.engine.clock.startMillis + 60_000
        fleet.advance(to: spawned)
        var spec = fleet.engine.fleet.groups[0]
        spec.name = "newcomers"
        spec.count = 2
        spec.arrivals = Arrivals(perHour: 30, untilMillis: DailyCurve.hourMillis)
        let ids = try fleet.command { engine throws(FleetControlError) in
            try engine.spawn(SpawnRequest(template: .spec(spec), count: 2))
        }
        #expect(ids == ["newcomers-0001", "newcomers-0002"])
        fleet.advance(to: spawned + 2 * DailyCurve.hourMillis)
        let expected = Self.expectedArrivals(
            seed: 5, perHour: 30, start: spawned, until: DailyCurve.hourMillis, group: 1)
        #expect(expected.count > 10)
        #expect(fleet.engine.fleet.groups[1].count == 2 + expected.count)
        let arrived = fleet.engine.slots.filter { $0.group == 1 && $0.identity.indexInGroup >= 2 }
        #expect(arrived.map(\.world.setOffAt) == expected)
        #expect(fleet.engine.fleet.groups[0].count == 1, "the file's group has no arrivals")
    }
}
