import Foundation
import Testing

@testable import FleetEngine
@testable import beekon_bench

/// `beekon-bench compare`'s made-up run: the devices, groups, uploads and faults asked for, fixes
/// that add up, and a candidate that differs from the baseline only where it is meant to.
@Suite("Bench compare's made-up run")
struct BenchCompareTests {
    static let plan = SyntheticRun(devices: 400, groups: 20, uploadsPerDevice: 3, faults: 5, virtualDays: 1, seed: 7)

    @Test("it has the devices, groups, uploads, faults and history asked for, and its fixes add up")
    func counts() throws {
        let made = try Self.plan.make(.baseline)
        let metrics = made.snapshot.metrics
        #expect(metrics.devices == 400)
        #expect(metrics.devicesByState.values.reduce(0, +) == 400)
        #expect(made.snapshot.groups.count == 20)
        #expect(Set(made.devicesByGroup.keys) == Set(made.snapshot.groups))
        #expect(made.devicesByGroup.values.flatMap(\.values).reduce(0, +) == 400)
        #expect(metrics.uploads.overall.values.map(\.count).reduce(0, +) == 1200)
        #expect(metrics.uploadsByGroup.count == 20)
        #expect(metrics.uploadsByGroup.flatMap(\.byOutcome.values).map(\.count).reduce(0, +) == 1200)
        #expect(metrics.timeline.count == 5)
        #expect(metrics.drains.count == 5)
        #expect(metrics.fixes.ledger.unaccounted == 0)
        #expect(metrics.fixes.unaccounted == 0)
        #expect(metrics.fixesByGroup.map(\.ledger.admitted).reduce(0, +) == metrics.fixes.ledger.admitted)
        // A day at 10 s a row: 8,640 rows at most, up to the last upload's.
        #expect(metrics.history.widthMillis == 10_000)
        #expect(metrics.history.rows.count > 8_500)
        #expect(metrics.virtualNow - made.snapshot.startedAt == 86_400_000)
    }

    @Test("the candidate's server is 20 % slower with more 503s, and it sent the same requests")
    func candidateDiffers() throws {
        let baseline = try Self.plan.make(.baseline).snapshot.metrics
        let candidate = try Self.plan.make(.candidate).snapshot.metrics
        let ratio = candidate.serverLatency.percentile(0.99) / baseline.serverLatency.percentile(0.99)
        #expect(ratio > 1.17 && ratio < 1.23)
        let unavailable = { (metrics: FleetMetrics) in metrics.uploads.overall[.status(503)]?.count ?? 0 }
        #expect(unavailable(candidate) > unavailable(baseline))
        #expect(candidate.sent == baseline.sent)
        #expect(candidate.uploads.overall.values.map(\.count).reduce(0, +) == 1200)
    }
}
