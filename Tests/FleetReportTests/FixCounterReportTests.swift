import FleetEngine
import FleetTestSupport
import Testing

@testable import FleetReport

/// The run's own counts of fixes are described once (`FixAccount.counters`), and every surface
/// reads that table: a count added there is in the fixes body, the report and shards' merge (the
/// CSV and `/metrics`: `FixCounterMetricsTests`).
@Suite("The run's own fix counts in the fixes body, the report and the merge")
struct FixCounterReportTests {
    @Test("each count is in the API's fixes, under its member and part")
    func api() {
        let text = APIJSON.text(FixesBody(FixCounterExample.snapshot().metrics.fixes))
        for (index, counter) in FixAccount.counters.enumerated() {
            let name = counter.part ?? counter.member
            #expect(text.contains("\"\(name)\":\(101 + index)"), "\(counter.member) \(name)")
            #expect(text.contains("\"\(counter.member)\":"), "\(counter.member)")
        }
    }

    @Test("each count is in the report, snake_case, in its fixes or its duplicates")
    func report() {
        let text = RunReportBody(FixCounterExample.snapshot()).fileText
        for (index, counter) in FixAccount.counters.enumerated() {
            let name = APIKeyStyle.snakeCase.name(FixCounts.MemberKey(FixCounts.flatName(counter)))
            #expect(text.contains("\"\(name)\":\(101 + index)"), "\(name)")
        }
    }

    @Test("shards' accounts add up every count")
    func merge() {
        let metrics = FixCounterExample.snapshot().metrics
        let merged = FleetMetrics.merged([metrics, metrics]).fixes
        for (index, counter) in FixAccount.counters.enumerated() {
            #expect(merged[keyPath: counter.value] == 2 * (101 + index))
        }
    }
}
