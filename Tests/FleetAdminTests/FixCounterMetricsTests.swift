import FleetEngine
import FleetTestSupport
import Testing

@testable import FleetAdmin
@testable import FleetReport

/// The run's own counts of fixes are described once (`FixAccount.counters`), and every surface
/// reads that table: a count added there has its column in the CSV and its counter in `/metrics`
/// (the fixes body, the report and the merge: `FixCounterReportTests`).
@Suite("The run's own fix counts in the CSV and /metrics")
struct FixCounterMetricsTests {
    @Test("each count has its column in the CSV's fixes file, and its counter in /metrics when it has one")
    func csvAndMetrics() {
        let snapshot = FixCounterExample.snapshot()
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
}
