import FleetDescription
import Testing

@testable import FleetEngine

/// Group targets alone: a fleet-wide count shared by the file's counts, stages until a count ends
/// them, and the total of the groups given a target.
@Suite("Group targets")
struct GroupTargetsTests {
    @Test("stages until ended; shares by the file's counts (1 for a group added later); the total of those set")
    func targets() throws {
        let yaml = """
            name: t
            groups:
              - {name: a, count: 3, route: r.csv, stages: [{for: 1m, devices: 4}]}
              - {name: b, count: 1, route: r.csv}
            """
        let fleet = try FleetFile.parse(yaml: yaml, file: "t.yaml")
        var targets = GroupTargets(
            groups: fleet.groups, stages: fleet.groupStages, daily: fleet.groupDaily, start: 1_000)
        #expect(targets.plan(0)?.target(at: 61_000) == 4 && targets.plan(1) == nil && targets.plan(7) == nil)
        #expect(targets.total == nil)
        #expect(targets.shares(groups: 3) == [3, 1, 1])
        targets.set(1, to: 2)
        targets.set(3, to: 5)
        #expect(targets.total == 7)
        #expect(targets.endStages() == [0] && targets.plan(0) == nil && targets.endStages().isEmpty)
    }
}
