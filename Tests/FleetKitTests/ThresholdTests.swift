import BeekonNet
import Foundation
import IngestReceiver
import Testing

@testable import FleetDescription
@testable import FleetEngine

/// Thresholds: what a run must meet to pass, read from `--threshold` and the fleet file's
/// `thresholds:`, checked against the run's figures at its end; one that fails exits 99.
@Suite("Thresholds", .serialized)
struct ThresholdTests {
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
            ("upload.too-many-open-files.rate == 0", "upload.too-many-open-files.rate", "==", 0),
            ("upload.count >= 100", "upload.count", ">=", 100),
            ("fixes.lost == 0", "fixes.lost", "==", 0),
            ("fixes.pending < 5000", "fixes.pending", "<", 5000),
            ("fixes.acknowledged.per_second > 50", "fixes.acknowledged.per_second", ">", 50),
        ])
    func reads(text: String, metric: String, comparison: String, limit: Double) throws {
        let threshold = try Threshold.read(text)
        #expect(threshold.metric.description == metric)
        #expect(threshold.comparison.rawValue == comparison)
        #expect(abs(threshold.limit - limit) < 1e-9, "\(threshold.limit)")
        #expect(threshold.expression == text.trimmingCharacters(in: .whitespaces))
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
            ("upload.latency.p99 < 5m", "\"5m\" is not a limit"),
            ("upload.errors.rate < 1.5", "\"1.5\" is more than all; expected a share from 0 to 1"),
            ("upload.errors.rate < 150%", "is more than all"),
            ("fixes.lost < -1", "\"-1\" is not a limit"),
            ("fixes.lost < nan", "is not a limit"),
            ("upload.errors.rate{group: android} < 0.01", "asks for one group"),
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
        metrics.fixes.ledger.acknowledged = 400
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
            ("upload.latency.max < 30000", false, "30000.0ms"),
            ("upload.latency.p50 < 200ms", true, "100."),
            ("fixes.lost == 0", false, "2"),
            ("fixes.acknowledged.per_second >= 50", true, "50.0/s"),
        ])
    func measures(text: String, passed: Bool, shown: String) throws {
        let outcomes: [(TransferOutcome, Double)] =
            Array(repeating: (.status(200), 100), count: 7) + [(.status(503), 100), (.status(503), 100)]
            + [(.failed(.timeout), 30_000)]
        let result = try #require(
            ThresholdResult.check([Threshold.read(text)], against: Self.metrics(outcomes, lost: 2)).first)
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
        let workspace = try FleetRuntimeTests.Workspace()
        defer { workspace.cleanUp() }
        let good = try workspace.fleet(
            FleetRuntimeTests.yaml(devices: 1)
                + "thresholds:\n  - upload.latency.p99 < 2s\n  - \"fixes.lost == 0\"\n")
        #expect(good.thresholds.map(\.expression) == ["upload.latency.p99 < 2s", "fixes.lost == 0"])
        #expect(good.thresholds.first?.limit == 2000)
        do {
            _ = try workspace.fleet(FleetRuntimeTests.yaml(devices: 1) + "thresholds:\n  - upload.latency.p99 < soon\n")
            Issue.record("a bad threshold was read")
        } catch {
            #expect(
                "\(error)".contains(
                    "fleet.yaml:16:5: error: `upload.latency.p99 < soon` \"soon\" is not a limit; expected a duration"),
                "\(error)")
        }
    }
}

/// `beekon-fleet run` says pass or fail: exit 0 when every threshold is met, 99 when one is not,
/// 64 for a bad threshold or fleet file; the thresholds are printed ✓/✗ with their values.
@Suite("Run verdict", .serialized)
struct RunVerdictTests {
    /// A run of 10 walkers for 10 virtual minutes at max warp against `receiver`.
    static func run(
        _ workspace: FleetRuntimeTests.Workspace, ingest: String, arguments: [String] = []
    ) throws -> RunStartTests.Outcome {
        let path = workspace.folder.appendingPathComponent("fleet.yaml").path
        try FleetRuntimeTests.yaml(devices: 10, sync: "{syncThreshold: 1, intervalSeconds: 60}")
            .write(toFile: path, atomically: true, encoding: .utf8)
        return try RunStartTests.run(
            [
                "run", path, "--data", workspace.data, "--admin", "off", "--warp", "max", "--for", "10m", "--ingest",
                ingest,
            ]
                + arguments)
    }

    @Test("against a healthy server: the given thresholds are met, printed ✓ with their values, and the run exits 0")
    func healthy() throws {
        let workspace = try FleetRuntimeTests.Workspace()
        defer { workspace.cleanUp() }
        let receiver = try workspace.receiver()
        defer { receiver.stop() }
        let outcome = try Self.run(
            workspace, ingest: receiver.url,
            arguments: ["--threshold", "upload.errors.rate < 0.01", "--threshold", "upload.latency.p99 < 1s"])
        #expect(outcome.status == 0, "\(outcome.output)\(outcome.errors)")
        #expect(outcome.output.contains("  ✓ upload.errors.rate < 0.01  (0.0)"), "\(outcome.output)")
        #expect(outcome.output.contains("  ✓ upload.latency.p99 < 1s  (100.0ms)"), "\(outcome.output)")
        #expect(outcome.output.contains("beekon-fleet: passed: 2 of 2 thresholds met"))
    }

    @Test(
        "against a server answering half the uploads 503: the threshold on 503s fails, is named, and the run exits 99")
    func halfFailing() throws {
        let workspace = try FleetRuntimeTests.Workspace()
        defer { workspace.cleanUp() }
        let receiver = try workspace.receiver { configuration in
            configuration.script = AnswerScript(seed: 5, mix: [MixEntry(.status(503), percent: 50)])
        }
        defer { receiver.stop() }
        let outcome = try Self.run(
            workspace, ingest: receiver.url,
            arguments: ["--threshold", "upload.status.503.rate < 10%", "--threshold", "fixes.lost == 0"])
        #expect(outcome.status == 99, "\(outcome.output)\(outcome.errors)")
        #expect(outcome.output.contains("  ✗ upload.status.503.rate < 10%  (0."), "\(outcome.output)")
        #expect(outcome.output.contains("  ✓ fixes.lost == 0  (0)"))
        #expect(outcome.output.contains("beekon-fleet: failed: 1 of 2 thresholds not met (exit 99)"))
    }

    @Test(
        """
        with the server down from the start, the default thresholds are reported and fail the run \
        only with --strict (exit 99, then 0 without it), and the run says no upload succeeded
        """)
    func serverDown() throws {
        let workspace = try FleetRuntimeTests.Workspace()
        defer { workspace.cleanUp() }
        let down = "http://127.0.0.1:9/ingest"
        let strict = try Self.run(workspace, ingest: down, arguments: ["--strict"])
        #expect(strict.status == 99, "\(strict.output)\(strict.errors)")
        #expect(strict.output.contains("  ✗ upload.errors.rate < 0.05  (1.0)"), "\(strict.output)")
        #expect(strict.output.contains("no upload succeeded"), "\(strict.output)")
        try? FileManager.default.removeItem(atPath: workspace.data)
        let lenient = try Self.run(workspace, ingest: down)
        #expect(lenient.status == 0, "\(lenient.output)\(lenient.errors)")
        #expect(lenient.output.contains("they count only with --strict"))
    }

    @Test("a bad --threshold or a fleet file the run cannot take exits 64, naming what is wrong")
    func usage() throws {
        let workspace = try FleetRuntimeTests.Workspace()
        defer { workspace.cleanUp() }
        let bad = try Self.run(
            workspace, ingest: "http://127.0.0.1:9/ingest", arguments: ["--threshold", "fixes.lost"])
        #expect(bad.status == 64)
        #expect(bad.errors.contains("threshold `fixes.lost` has no comparison"), "\(bad.errors)")
        let path = workspace.folder.appendingPathComponent("broken.yaml").path
        try "name: x\ngroups: []\n".write(toFile: path, atomically: true, encoding: .utf8)
        let broken = try RunStartTests.run(["run", path, "--data", workspace.data, "--admin", "off"])
        #expect(broken.status == 64)
        #expect(broken.errors.contains("broken.yaml:2:9: error: no groups"), "\(broken.errors)")
    }
}
