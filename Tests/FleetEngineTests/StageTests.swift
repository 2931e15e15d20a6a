import BeekonDevice
import FleetTestSupport
import Foundation
import Testing

@testable import FleetDescription
@testable import FleetEngine
@testable import FleetRuntime

/// The load over time: `stages:` ramp each group's device count in straight lines on the virtual
/// clock (k6's ramping stages), and `PATCH /api/v1/fleet {"devices": N}` sets it at once.
@Suite("Stages and the device count")
struct StageTests {
    static func yaml(stages: String, groupStages: String = "") -> String {
        """
        name: stages
        seed: 3
        clock: {start: 2026-06-15T08:00:00Z, warp: 60}
        \(stages)
        groups:
          - name: walkers
            count: 3
            platform: android
            route: walk.csv
            pace: walk
            config:
              preset: precision
              minTimeBetweenLocationsSeconds: 1
              minDistanceBetweenLocationsMeters: 0
              whenStationary: keepTracking
              sync: {syncThreshold: 3, intervalSeconds: 60}
          - name: riders
            count: 1
            platform: ios
            route: walk.csv
            pace: walk
            config:
              preset: precision
              whenStationary: keepTracking
              sync: {syncThreshold: 3, intervalSeconds: 60}
        \(groupStages)
        """
    }

    static func fleet(_ workspace: Workspace, _ yaml: String) throws -> SimulatedFleet {
        try workspace.simulated(yaml, timing: .deterministic)
    }

    /// Running devices (spawned, not standing by) per group name.
    static func running(_ fleet: SimulatedFleet) -> [String: Int] {
        var counts: [String: Int] = ["walkers": 0, "riders": 0]
        for slot in fleet.engine.slots where slot.device != nil && !slot.standingBy && !slot.removed {
            counts[fleet.engine.fleet.groups[slot.group].name, default: 0] += 1
        }
        return counts
    }

    @Test(
        """
        the most devices a file runs at once: each group's count, \
        or the most its stages (or its share of the fleet's) want
        """,
        arguments: [
            ("", "", 4),
            ("stages:\n  - {for: 10m, devices: 40}\n  - {for: 5m, devices: 8}", "", 40),
            ("", "    stages:\n      - {for: 1m, devices: 7}\n      - {for: 1m, devices: 2}", 10),
        ] as [(String, String, Int)])
    func mostDevices(stages: String, riders: String, most: Int) throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        #expect(try workspace.fleet(Self.yaml(stages: stages, groupStages: riders)).mostDevices == most)
    }

    @Test("a stage's line is followed exactly: its count at each instant, and when it next changes")
    func plan() {
        let plan = StagePlan(
            [
                Stage(durationMillis: 10_000, devices: 5), Stage(durationMillis: 0, devices: 2),
                Stage(durationMillis: 5_000, devices: 2),
            ], from: 1_000)
        let table: [(Int64, Int, Int64?)] = [
            (1_000, 0, 3_000), (2_999, 0, 3_000), (3_000, 1, 5_000), (10_999, 4, 11_000), (11_000, 2, nil),
            (14_000, 2, nil), (99_000, 2, nil),
        ]
        for (time, count, next) in table {
            #expect(plan.target(at: time) == count, "at \(time)")
            #expect(plan.nextChange(after: time) == next, "after \(time)")
        }
        let down = StagePlan([Stage(durationMillis: 0, devices: 4), Stage(durationMillis: 4_000, devices: 0)], from: 0)
        #expect(down.target(at: 0) == 4 && down.target(at: 1_000) == 3 && down.target(at: 4_000) == 0)
        #expect(down.nextChange(after: 0) == 1_000 && down.nextChange(after: 3_000) == 4_000)
        #expect(down.nextChange(after: 4_000) == nil)
    }

    @Test("the fleet's shares go by the groups' counts, largest remainder first, and may be 0")
    func shares() {
        #expect(FleetFile.shares(of: 8, weights: [3, 1], minimum: 0) == [6, 2])
        #expect(FleetFile.shares(of: 5, weights: [3, 1], minimum: 0) == [4, 1])
        #expect(FleetFile.shares(of: 1, weights: [3, 1], minimum: 0) == [1, 0])
        #expect(FleetFile.shares(of: 0, weights: [3, 1], minimum: 0) == [0, 0])
        #expect(FleetFile.shares(of: 3, weights: [0, 0, 0], minimum: 0) == [1, 1, 1])
    }

    @Test(
        """
        the fleet's stages ramp from none to each target on the virtual timeline, shared 3:1, and back \
        to none; scaled-down devices stop and still deliver what they hold, and every fix is accounted for
        """)
    func fleetStages() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let stages = """
            stages:
              - {for: 4m, devices: 8}
              - {for: 2m, devices: 8}
              - {for: 2m, devices: 0}
            """
        var fleet = try Self.fleet(workspace, Self.yaml(stages: stages))
        let start = fleet.engine.clock.startMillis
        let table: [(minutes: Int64, walkers: Int, riders: Int)] = [
            (0, 0, 0), (1, 1, 0), (2, 3, 1), (4, 6, 2), (5, 6, 2), (6, 6, 2), (7, 3, 1), (8, 0, 0), (12, 0, 0),
        ]
        for row in table {
            fleet.advance(to: start + row.minutes * 60_000)
            #expect(Self.running(fleet) == ["walkers": row.walkers, "riders": row.riders], "at \(row.minutes) min")
        }
        // The devices made are the most ever wanted; the stopped ones stand by as `stopped`.
        #expect(fleet.engine.slots.count == 8)
        #expect(fleet.engine.slots.allSatisfy { $0.standingBy && $0.state == .stopped })
        let metrics = fleet.engine.snapshot()
        #expect(metrics.fixes.unaccounted == 0 && metrics.fixes.ledger.lost == 0)
        #expect(metrics.fixes.ledger.admitted > 1_000)
        #expect(metrics.fixes.ledger.pending == 0, "a stopped device still uploads what it holds")
    }

    @Test("a group's own stages override its share; a devices command sets the count at once and ends the stages")
    func groupStagesAndDevicesCommand() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let stages = "stages:\n  - {for: 10m, devices: 40}"
        let riders = "    stages:\n      - {for: 0s, devices: 2}"
        var fleet = try Self.fleet(workspace, Self.yaml(stages: stages, groupStages: riders))
        let start = fleet.engine.clock.startMillis
        fleet.advance(to: start + 60_000)
        // The walkers alone share the fleet's stages (40 over 10 minutes); the riders are at 2 at once.
        #expect(Self.running(fleet) == ["walkers": 4, "riders": 2])
        #expect(fleet.engine.targetDevices == 6)
        try fleet.engine.setFleetDevices(5)
        // 5 shared 3:1 by the file's counts: 4 and 1; the stages are over.
        #expect(Self.running(fleet) == ["walkers": 4, "riders": 1])
        fleet.advance(to: start + 9 * 60_000)
        #expect(Self.running(fleet) == ["walkers": 4, "riders": 1])
        // Up again: the stopped rider starts again before a new one is made.
        let riders1 = fleet.engine.slots.filter { fleet.engine.fleet.groups[$0.group].name == "riders" }.count
        try fleet.engine.setFleetDevices(8)
        // New devices wait in the admin's spawn queue for the loop's next turn, as POST /devices ones do.
        fleet.advance(byMillis: 1_000)
        #expect(Self.running(fleet) == ["walkers": 6, "riders": 2])
        #expect(fleet.engine.slots.filter { fleet.engine.fleet.groups[$0.group].name == "riders" }.count == riders1)
        // More than 10,000 new devices in one command is refused, naming the field, and changes nothing.
        #expect(throws: FleetControlError.self) { try fleet.engine.setFleetDevices(20_000) }
        #expect(Self.running(fleet) == ["walkers": 6, "riders": 2])
    }

    @Test(
        "stages are read with their lines and columns; a stage without `for` or `devices`, or out of range, is refused",
        arguments: [
            ("stages:\n  - {for: 1m}\n", "fleet.yaml:5:5: error: a stage needs `for` and `devices`"),
            (
                "stages:\n  - {for: 1m, devices: 100001}\n",
                "fleet.yaml:5:24: error: `devices` \"100001\" is out of range"
            ),
            ("stages:\n  - {for: soon, devices: 1}\n", "fleet.yaml:5:11: error:"),
            ("stages:\n  - {for: 1m, devices: 1, ramp: linear}\n", "unknown key \"ramp\" in a stage"),
            ("stages: []\n", "`stages` has no stage"),
        ])
    func refused(stages: String, problem: String) throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        do {
            _ = try workspace.fleet(Self.yaml(stages: stages))
            Issue.record("read")
        } catch {
            #expect("\(error)".contains(problem), "\(error)")
        }
    }
}
