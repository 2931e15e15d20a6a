import FleetEngine
import Testing

@testable import FleetAdmin
@testable import FleetReport

/// The run's own counts of fixes are described once (`FixAccount.counters`), and every surface
/// reads that table: a count added there is in the API, the report, the CSV and `/metrics`.
@Suite("The run's own fix counts on every surface")
struct FixCounterSurfacesTests {
    /// A snapshot whose every own count is set, each to a value of its own.
    static func snapshot() -> FleetSnapshot {
        var account = FixAccount()
        for (index, counter) in FixAccount.counters.enumerated() { account[keyPath: counter.value] = 101 + index }
        var snapshot = FleetSnapshot()
        snapshot.groups = ["walkers"]
        snapshot.metrics.fixes = account
        snapshot.metrics.fixesByGroup = [account]
        return snapshot
    }

    @Test("each count is in the API's fixes, under its member and part")
    func api() {
        let text = APIBodyTests.text(FixesBody(Self.snapshot().metrics.fixes))
        for (index, counter) in FixAccount.counters.enumerated() {
            let name = counter.part ?? counter.member
            #expect(text.contains("\"\(name)\":\(101 + index)"), "\(counter.member) \(name)")
            #expect(text.contains("\"\(counter.member)\":"), "\(counter.member)")
        }
    }

    @Test("each count is in the report, snake_case, in its fixes or its duplicates")
    func report() {
        let text = RunReportBody(Self.snapshot()).fileText
        for (index, counter) in FixAccount.counters.enumerated() {
            let name = APIKeyStyle.snakeCase.name(FixCounts.MemberKey(FixCounts.flatName(counter)))
            #expect(text.contains("\"\(name)\":\(101 + index)"), "\(name)")
        }
    }

    @Test("each count has its column in the CSV's fixes file, and its counter in /metrics when it has one")
    func csvAndMetrics() {
        let snapshot = Self.snapshot()
        let lines = RunCSV.fixes(snapshot).split(separator: "\r\n").map { $0.split(separator: ",").map(String.init) }
        let metrics = PrometheusText.render(snapshot)
        for (index, counter) in FixAccount.counters.enumerated() {
            let column = lines[0].firstIndex(of: counter.column)
            #expect(column.map { lines[1][$0] } == String(101 + index), "\(counter.column)")
            if let metric = counter.metric {
                let name = "beekon_fleet_fixes_\(metric.name)_total"
                #expect(metrics.contains("# HELP \(name) \(metric.help)\n# TYPE \(name) counter\n"))
                #expect(metrics.contains("\n\(name){group=\"walkers\"} \(101 + index)\n"))
            }
        }
    }

    @Test("shards' accounts add up every count")
    func merge() {
        let metrics = Self.snapshot().metrics
        let merged = FleetMetrics.merged([metrics, metrics]).fixes
        for (index, counter) in FixAccount.counters.enumerated() {
            #expect(merged[keyPath: counter.value] == 2 * (101 + index))
        }
    }
}
