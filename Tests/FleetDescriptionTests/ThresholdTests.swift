import BeekonNet
import BeekonStore
import FleetTestSupport
import Foundation
import Testing

@testable import FleetDescription
@testable import FleetEngine

/// Thresholds: what a run must meet to pass, read from `--threshold` and the fleet file's
/// `thresholds:`, checked against the run's figures at its end; one that fails exits 99.
@Suite("Thresholds", .serialized)
struct ThresholdTests {
    @Test("the threshold reader names exactly the outcomes a device can hear without a status")
    func failureLabelsAreTheOutcomes() {
        #expect(Set(Threshold.Metric.failureLabels) == Set(TransferOutcome.networkOutcomes.map(\.description)))
        #expect(Threshold.Metric.failureLabels.count == TransferOutcome.networkOutcomes.count)
    }

    @Test(
        "an expression reads into its metric, comparison and limit in the metric's unit",
        arguments: [
            ("upload.latency.p99 < 500ms", "upload.latency.p99", "<", 500.0),
            ("upload.latency.p50<=1.5s", "upload.latency.p50", "<=", 1500),
            ("upload.latency.max < 30000", "upload.latency.max", "<", 30000),
            ("  upload.errors.rate < 0.01 ", "upload.errors.rate", "<", 0.01),
            ("upload.errors.rate < 1%", "upload.errors.rate", "<", 0.01),
            ("upload.status.503.rate <= 2%", "upload.status.503.rate", "<=", 0.02),
            ("upload.status.429.count == 0", "upload.status.429.count", "==", 0),
            ("upload.timeout.count < 10", "upload.timeout.count", "<", 10),
            ("upload.not-sent-descriptors.rate == 0", "upload.not-sent-descriptors.rate", "==", 0),
            ("upload.count >= 100", "upload.count", ">=", 100),
            ("fixes.lost == 0", "fixes.lost", "==", 0),
            ("fixes.pending < 5000", "fixes.pending", "<", 5000),
            ("fixes.acknowledged.per_second > 50", "fixes.acknowledged.per_second", ">", 50),
            ("fixes.rejected == 0", "fixes.rejected", "==", 0),
            ("fixes.expired == 0", "fixes.expired", "==", 0),
            ("fixes.deleted <= 10", "fixes.deleted", "<=", 10),
            ("fixes.unaccounted == 0", "fixes.unaccounted", "==", 0),
            ("fixes.age.p99 < 5m", "fixes.age.p99", "<", 300_000),
            ("fixes.age.max < 2h", "fixes.age.max", "<", 7_200_000),
            ("backlog.max < 1000", "backlog.max", "<", 1000),
            ("duplicates.fixes == 0", "duplicates.fixes", "==", 0),
            ("duplicates.batches < 3", "duplicates.batches", "<", 3),
            ("drain.max < 10m", "drain.max", "<", 600_000),
            ("upload.latency.p99{group: android} < 500ms", "upload.latency.p99", "<", 500),
            ("fixes.lost{group:ios-walkers}== 0", "fixes.lost", "==", 0),
        ])
    func reads(text: String, metric: String, comparison: String, limit: Double) throws {
        let threshold = try Threshold.read(text)
        #expect(threshold.metric.description == metric)
        #expect(threshold.comparison.rawValue == comparison)
        #expect(abs(threshold.limit - limit) < 1e-9, "\(threshold.limit)")
        #expect(threshold.expression == text.trimmingCharacters(in: .whitespaces))
        let group = text.firstRange(of: "{group:").map { _ in
            text.split(separator: ":")[1].split(separator: "}")[0].trimmingCharacters(in: .whitespaces)
        }
        #expect(threshold.group == group)
    }

    @Test(
        "an expression that is not one is refused, saying what is wrong and what was expected",
        arguments: [
            ("", "is empty"),
            ("upload.latency.p99 500ms", "has no comparison"),
            ("upload.lag.p99 < 5", "\"upload.lag.p99\" is not a metric; expected one of upload.latency.p50"),
            ("upload.latency.p98 < 5", "is not a metric"),
            ("upload.status.999.rate < 0.1", "is not a metric"),
            ("upload.status.50.rate < 0.1", "is not a metric"),
            ("upload.latency.p99 < fast", "\"fast\" is not a limit; expected a duration such as 500ms"),
            ("upload.latency.p99 < 5 min", "\"5 min\" is not a limit"),
            ("backlog.max < 10m", "\"10m\" is not a limit; expected a number from 0"),
            ("upload.errors.rate < 1.5", "\"1.5\" is more than all; expected a share from 0 to 1"),
            ("upload.errors.rate < 150%", "is more than all"),
            ("fixes.lost < 1-", "\"1-\" is not a limit"),
            ("fixes.lost < nan", "is not a limit"),
            ("upload.errors.rate{group: android < 0.01", "with no closing }"),
            ("upload.errors.rate{platform: ios} < 0.01", "filters on `platform: ios`, which is not `group: NAME`"),
            ("upload.errors.rate{group: } < 0.01", "names no group"),
        ])
    func refuses(text: String, message: String) {
        do throws(ThresholdProblem) {
            _ = try Threshold.read(text)
            Issue.record("\"\(text)\" was read")
        } catch {
            #expect(error.description.contains(message), "\(error)")
        }
    }

    /// Figures of a run whose uploads ended as `outcomes` (each with its latency, ms).
    static func metrics(_ outcomes: [(TransferOutcome, Double)], lost: Int = 0) -> FleetMetrics {
        var metrics = FleetMetrics()
        for (outcome, latency) in outcomes {
            metrics.uploads.record(outcome, latencyMillis: latency, serverMillis: nil, realNanos: 0)
            metrics.latency.record(latency)  // As the engine records every upload's.
        }
        if lost > 0 { metrics.fixesLostByCause = ["full": lost] }
        metrics.fixes.ledger = FixLedger(
            admitted: 438 + lost, acknowledged: 400, rejected: 5, pending: 30, expired: 1, deleted: 2, lost: lost)
        metrics.fixes.handedToStores = 438 + lost
        metrics.fixes.maxPending = 120
        for second in 1...10 { metrics.fixes.ageAtAcknowledgement.record(Double(second) * 1000) }
        metrics.fixes.unheardAcknowledgements = FixAccount.Resent(batches: 2, fixes: 3)
        metrics.virtualNow = 1_000_000
        metrics.drains = [
            FaultDrain(
                fault: 0, source: .timeline, action: .networkOffline, startedAt: 0, endedAt: 100_000, pendingBefore: 5,
                pendingAtEnd: 90, drainMillis: 90_000)
        ]
        // One group, "walkers": the 503s and the timeout were its; it lost nothing.
        var walkers = GroupUploads()
        for (outcome, latency) in outcomes where outcome != .status(200) {
            walkers.byOutcome[outcome, default: UploadStats.Tally()].count += 1
            walkers.latency.record(latency)
        }
        metrics.uploadsByGroup = [walkers]
        var account = FixAccount()
        account.ledger = FixLedger(
            admitted: 10, acknowledged: 10, rejected: 0, pending: 0, expired: 0, deleted: 0, lost: 0)
        account.handedToStores = 10
        metrics.fixesByGroup = [account]
        metrics.realSeconds = 8
        return metrics
    }

    @Test(
        "each metric is measured from the run's figures, and nothing to measure fails the threshold",
        arguments: [
            ("upload.count == 10", true, "10"),
            ("upload.errors.rate < 0.25", false, "0.3"),
            ("upload.errors.count == 3", true, "3"),
            ("upload.status.503.rate <= 20%", true, "0.2"),
            ("upload.status.200.count == 7", true, "7"),
            ("upload.timeout.count == 1", true, "1"),
            ("upload.refused.rate == 0", true, "0.0"),
            ("upload.latency.max < 30000", false, "30.0s"),
            ("upload.latency.p50 < 200ms", true, "100ms"),
            ("fixes.lost == 0", false, "2"),
            ("fixes.acknowledged.per_second >= 50", true, "50.0/s"),
            ("fixes.rejected == 5", true, "5"),
            ("fixes.expired == 0", false, "1"),
            ("fixes.deleted == 2", true, "2"),
            ("fixes.pending < 30", false, "30"),
            ("fixes.unaccounted == 0", true, "0"),
            ("fixes.age.p50 <= 5.1s", true, "5.0s"),
            ("fixes.age.max < 10s", false, "10"),
            ("backlog.max < 100", false, "120"),
            ("duplicates.batches == 2", true, "2"),
            ("duplicates.fixes == 0", false, "3"),
            ("drain.max < 2m", true, "1m30.0s"),
            ("upload.errors.rate{group: walkers} == 1", true, "1.0"),
            ("upload.count{group: walkers} == 3", true, "3"),
            ("fixes.lost{group: walkers} == 0", true, "0"),
            ("upload.latency.p50{group: walkers} >= 100", true, "100"),
            ("fixes.lost{group: nobody} == 0", false, "no data"),
        ])
    func measures(text: String, passed: Bool, shown: String) throws {
        let outcomes: [(TransferOutcome, Double)] =
            Array(repeating: (.status(200), 100), count: 7) + [(.status(503), 100), (.status(503), 100)]
            + [(.failed(.timeout), 30_000)]
        let result = try #require(
            ThresholdResult.check([Threshold.read(text)], against: Self.metrics(outcomes, lost: 2), groups: ["walkers"])
                .first)
        #expect(result.passed == passed, "\(result.line)")
        #expect(result.valueText.hasPrefix(shown), "\(result.valueText)")
        #expect(result.line.hasPrefix(passed ? "✓ " : "✗ "))
    }

    @Test("with no upload, latencies and rates have no data and fail; counts are 0")
    func noData() throws {
        let results = ThresholdResult.check(
            try ["upload.latency.p99 < 500ms", "upload.errors.rate < 0.05", "upload.count == 0"].map(Threshold.read),
            against: FleetMetrics())
        #expect(results.map(\.passed) == [false, false, true])
        #expect(results[0].valueText == "no data")
    }

    @Test("the fleet file's thresholds are read in order, and a bad one is reported at its line and column")
    func fleetFile() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let good = try workspace.fleet(
            Workspace.yaml(devices: 1)
                + "thresholds:\n  - upload.latency.p99 < 2s\n  - \"fixes.lost == 0\"\n")
        #expect(good.thresholds.map(\.expression) == ["upload.latency.p99 < 2s", "fixes.lost == 0"])
        #expect(good.thresholds.first?.limit == 2000)
        do {
            _ = try workspace.fleet(Workspace.yaml(devices: 1) + "thresholds:\n  - upload.latency.p99 < soon\n")
            Issue.record("a bad threshold was read")
        } catch {
            #expect(
                "\(error)".contains(
                    "fleet.yaml:16:5: error: `upload.latency.p99 < soon` \"soon\" is not a limit; expected a duration"),
                "\(error)")
        }
    }

    @Test(
        "k6's object form: abortOnFail and delayAbortEval are read; a missing group or an unknown key is reported",
        arguments: [
            ("  - {threshold: \"upload.errors.rate < 0.5\", abortOnFail: true, delayAbortEval: 2m}\n", nil),
            ("  - {threshold: \"upload.errors.rate < 0.5\"}\n", nil),
            (
                "  - {threshold: \"upload.errors.rate < 0.5\", abortOnFail: yes please}\n",
                "fleet.yaml:16:58: error: \"yes please\" is not true or false"
            ),
            (
                "  - {threshold: \"upload.errors.rate < 0.5\", abort: true}\n",
                "fleet.yaml:16:45: error: unknown key \"abort\" in a threshold; expected one of abortOnFail"
            ),
            ("  - {abortOnFail: true}\n", "fleet.yaml:16:5: error: a threshold with no `threshold:`"),
            (
                "  - \"fixes.lost{group: cars} == 0\"\n",
                "fleet.yaml:16:5: error: `fixes.lost{group: cars} == 0` names group \"cars\", which the fleet file "
                    + "does not have; expected one of \"walkers\""
            ),
        ] as [(String, String?)])
    func fleetFileObjectForm(entry: String, problem: String?) throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        do {
            let fleet = try workspace.fleet(Workspace.yaml(devices: 1) + "thresholds:\n" + entry)
            #expect(problem == nil, "read: \(fleet.thresholds)")
            let threshold = try #require(fleet.thresholds.first)
            #expect(threshold.expression == "upload.errors.rate < 0.5")
            #expect(threshold.abortOnFail == entry.contains("abortOnFail: true"))
            #expect(threshold.delayAbortEvalMillis == (entry.contains("2m") ? 120_000 : 0))
        } catch {
            #expect(problem.map { "\(error)".contains($0) } == true, "\(error)")
        }
    }
}
