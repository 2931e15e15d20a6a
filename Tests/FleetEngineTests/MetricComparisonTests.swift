import FleetDescription
import FleetTestSupport
import Testing

@testable import FleetEngine
@testable import FleetRuntime

/// Two runs side by side: the same simulated fleet twice changes nothing; a slower network moves
/// the latencies and nothing it should not.
@Suite("Metric comparison of two runs")
struct MetricComparisonTests {
    static func run(answerAfter millis: Int64) throws -> (FleetMetrics, [String]) {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        var fleet = try SimulatedFleetTests.fleet(workspace) { _ in .respond(status: 200, afterMillis: millis) }
        fleet.advance(byMillis: 10 * 60_000)
        let snapshot = fleet.engine.snapshot()
        return (snapshot, fleet.engine.fleet.groups.map(\.name))
    }

    @Test("the same fleet against the same answers: every metric's change is 0, or nothing to measure on both sides")
    func same() throws {
        let (base, groups) = try Self.run(answerAfter: 80)
        let (candidate, _) = try Self.run(answerAfter: 80)
        let rows = MetricComparison.all(
            baseline: base, baselineGroups: groups, candidate: candidate, candidateGroups: groups)
        #expect(rows.count > 40 && rows.contains { $0.group != nil })
        for row in rows where !(row.metric == .acknowledgedPerSecond) {
            #expect(row.delta == 0 || (row.baseline == nil && row.candidate == nil), "\(row)")
        }
    }

    @Test("answers 200 virtual ms slower: the heard latency moves by it, the fix accounting does not")
    func slower() throws {
        let (base, groups) = try Self.run(answerAfter: 80)
        let (candidate, _) = try Self.run(answerAfter: 280)
        let rows = MetricComparison.all(
            baseline: base, baselineGroups: groups, candidate: candidate, candidateGroups: groups)
        let p50 = try #require(rows.first { $0.metric == .latency(fraction: 0.5, name: "p50") && $0.group == nil })
        #expect(p50.delta.map { abs($0 - 200) < 5 } == true, "\(p50)")
        let lost = try #require(rows.first { $0.metric == .fixes(.lost) && $0.group == nil })
        #expect(lost.delta == 0)
    }
}
