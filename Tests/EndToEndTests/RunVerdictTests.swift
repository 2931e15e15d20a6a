import FleetTestSupport
import Foundation
import IngestReceiver
import Testing

/// `beekon-fleet run` says pass or fail: exit 0 when every threshold is met, 99 when one is not,
/// 64 for a bad threshold or fleet file; the thresholds are printed ✓/✗ with their values.
@Suite("Run verdict", .serialized)
struct RunVerdictTests {
    /// A run of 10 walkers for 10 virtual minutes at max warp against `receiver`.
    static func run(
        _ workspace: Workspace, ingest: String, arguments: [String] = []
    ) async throws -> ChildRun.Result {
        let path = workspace.folder.appendingPathComponent("fleet.yaml").path
        try Workspace.yaml(devices: 10, sync: "{syncThreshold: 1, intervalSeconds: 60}")
            .write(toFile: path, atomically: true, encoding: .utf8)
        return try await ChildRun.runFleet(
            [
                "run", path, "--data", workspace.data, "--admin", "off", "--warp", "max", "--for", "10m", "--ingest",
                ingest,
            ]
                + arguments)
    }

    @Test("against a healthy server: the given thresholds are met, printed ✓ with their values, and the run exits 0")
    func healthy() async throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let receiver = try workspace.receiver()
        defer { receiver.stop() }
        let report = workspace.folder.appendingPathComponent("run.json").path
        let outcome = try await Self.run(
            workspace, ingest: receiver.url,
            arguments: [
                "--threshold", "upload.errors.rate < 0.01", "--threshold", "upload.latency.p99 < 1s", "--threshold",
                "fixes.lost{group: walkers} == 0", "--report", report, "--csv",
                workspace.folder.appendingPathComponent("run").path,
            ])
        #expect(outcome.status == 0, "\(outcome.output)\(outcome.errors)")
        #expect(outcome.output.contains("  ✓ upload.errors.rate < 0.01  (0.0)"), "\(outcome.output)")
        #expect(outcome.output.contains("  ✓ upload.latency.p99 < 1s  (100ms)"), "\(outcome.output)")
        #expect(outcome.output.contains("  ✓ fixes.lost{group: walkers} == 0  (0)"), "\(outcome.output)")
        #expect(outcome.output.contains("beekon-fleet: passed: 3 of 3 thresholds met"))
        // The summary, then the report, which says the same.
        #expect(outcome.output.contains("every admitted fix is accounted for; none was lost"), "\(outcome.output)")
        #expect(outcome.output.contains("beekon-fleet:   uploads ........... "), "\(outcome.output)")
        #expect(outcome.output.contains("beekon-fleet: written: \(report)"))
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any])
        #expect(json["exit_code"] as? Int == 0)
        #expect(json["ended_by"] as? String == "virtual_time_limit")
        #expect(json["virtual_seconds"] as? Double == 600)
        let fixes = try #require(json["fixes"] as? [String: Int])
        let stats = receiver.stats()
        #expect(fixes["acknowledged"] == stats.fixesStored && stats.fixesStored > 0)
        #expect(
            fixes["carried_over"]! + fixes["admitted"]!
                == fixes["acknowledged"]! + fixes["rejected"]! + fixes["pending"]! + fixes["expired"]!
                + fixes["deleted"]! + fixes["lost"]!)
        #expect(fixes["unaccounted"] == 0 && fixes["lost"] == 0)
        let duplicates = try #require(json["duplicates"] as? [String: Any])
        #expect(duplicates["receiver_batches"] is NSNull, "another server's duplicates are not known")
        let thresholds = try #require(json["thresholds"] as? [[String: Any]])
        #expect(thresholds.map { $0["passed"] as? Bool } == [true, true, true])
        #expect(thresholds.map { $0["group"] as? String } == [nil, nil, "walkers"])
        let groups = try #require(json["groups"] as? [String: [String: Any]])
        #expect((groups["walkers"]?["fixes"] as? [String: Int]) == fixes)

        // The CSV files, as Locust's: stats per group and outcome, the accounting, the history.
        func rows(_ suffix: String) throws -> [[String]] {
            let text = try String(
                contentsOf: workspace.folder.appendingPathComponent("run" + suffix), encoding: .utf8)
            #expect(text.hasSuffix("\r\n"))
            return text.split(separator: "\r\n").map {
                $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            }
        }
        let statsRows = try rows("_stats.csv")
        #expect(statsRows.first?.prefix(4) == ["Group", "Outcome", "Kind", "Count"])
        #expect(
            statsRows.dropFirst().map { $0.prefix(2) } == [
                ["walkers", "200"], ["walkers", "Aggregated"], ["Aggregated", "200"], ["Aggregated", "Aggregated"],
            ])
        #expect(statsRows.last?[3] == String(receiver.stats().batchesStored))
        let accounting = try rows("_fixes.csv")
        #expect(accounting.map(\.first) == ["Group", "walkers", "Aggregated"])
        #expect(accounting.last?[3] == String(fixes["acknowledged"]!))
        let history = try rows("_stats_history.csv")
        // Ten virtual minutes in 10 s rows, each row's uploads adding up to the run's.
        #expect(history.count >= 61 && history.count <= 62, "\(history.count) rows")
        let uploadsColumn = try #require(history.first?.firstIndex(of: "Uploads"))
        #expect(
            history.dropFirst().compactMap { Int($0[uploadsColumn]) }.reduce(0, +) == receiver.stats().batchesStored)
    }

    @Test(
        """
        a threshold with abortOnFail stops the run once it fails past its delay: exit 99, said, and \
        the report ends by it, long before the run's length
        """)
    func abortOnFail() async throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let receiver = try workspace.receiver { configuration in
            configuration.script = AnswerScript(seed: 5, mix: [MixEntry(.status(503), percent: 50)])
        }
        defer { receiver.stop() }
        let path = workspace.folder.appendingPathComponent("fleet.yaml").path
        try
            (Workspace.yaml(devices: 10, sync: "{syncThreshold: 1, intervalSeconds: 60}")
            + "thresholds:\n  - {threshold: \"upload.status.503.rate < 10%\", abortOnFail: true, delayAbortEval: 2m}\n")
            .write(toFile: path, atomically: true, encoding: .utf8)
        let report = workspace.folder.appendingPathComponent("run.json").path
        let outcome = try await ChildRun.runFleet([
            "run", path, "--data", workspace.data, "--admin", "off", "--warp", "120", "--for", "2h", "--ingest",
            receiver.url, "--report", report,
        ])
        #expect(outcome.status == 99, "\(outcome.output)\(outcome.errors)")
        #expect(outcome.output.contains("`upload.status.503.rate < 10%` failed (0."), "\(outcome.output)")
        #expect(outcome.output.contains("and has abortOnFail (exit 99)"))
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any])
        #expect(json["ended_by"] as? String == "threshold_abort")
        #expect(json["aborted_by"] as? String == "upload.status.503.rate < 10%")
        #expect(json["exit_code"] as? Int == 99)
        // Not before its delay, and long before the run's two hours.
        let seconds = json["virtual_seconds"] as? Double ?? 0
        #expect(seconds >= 120 && seconds < 1800, "\(seconds) virtual s")
    }

    @Test(
        "a report whose folder is missing, or a threshold on a group the fleet lacks, is refused at once: exit 64"
    )
    func refusedBeforeTheRun() async throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let missing = try await Self.run(
            workspace, ingest: "http://127.0.0.1:9/ingest", arguments: ["--report", "/nonexistent/run.json"])
        #expect(missing.status == 64, "\(missing.output)\(missing.errors)")
        #expect(missing.errors.contains("--report /nonexistent/run.json: the folder /nonexistent does not exist"))
        let plain = workspace.folder.appendingPathComponent("plain.txt").path
        try "not a folder".write(toFile: plain, atomically: true, encoding: .utf8)
        let file = try await Self.run(
            workspace, ingest: "http://127.0.0.1:9/ingest", arguments: ["--csv", plain + "/run"])
        #expect(file.status == 64, "\(file.output)\(file.errors)")
        #expect(
            file.errors.contains("--csv \(plain)/run_stats.csv: \(plain) is a file, not a folder"), "\(file.errors)")
        let group = try await Self.run(
            workspace, ingest: "http://127.0.0.1:9/ingest", arguments: ["--threshold", "fixes.lost{group: cars} == 0"])
        #expect(group.status == 64, "\(group.output)\(group.errors)")
        #expect(group.errors.contains("has no group \"cars\" (it has \"walkers\")"), "\(group.errors)")
        #expect(!FileManager.default.fileExists(atPath: workspace.data + "/devices"), "the run started")
    }

    @Test(
        "against a server answering half the uploads 503: the threshold on 503s fails, is named, and the run exits 99")
    func halfFailing() async throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let receiver = try workspace.receiver { configuration in
            configuration.script = AnswerScript(seed: 5, mix: [MixEntry(.status(503), percent: 50)])
        }
        defer { receiver.stop() }
        let report = workspace.folder.appendingPathComponent("run.json").path
        let outcome = try await Self.run(
            workspace, ingest: receiver.url,
            arguments: [
                "--threshold", "upload.status.503.rate < 10%", "--threshold", "fixes.lost == 0", "--report", report,
            ])
        #expect(outcome.status == 99, "\(outcome.output)\(outcome.errors)")
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any])
        #expect(json["exit_code"] as? Int == 99)
        let failed = (json["thresholds"] as? [[String: Any]])?.first
        #expect(failed?["expression"] as? String == "upload.status.503.rate < 10%")
        #expect(failed?["passed"] as? Bool == false)
        #expect((failed?["value"] as? Double ?? 0) > 0.3)
        #expect(outcome.output.contains("  ✗ upload.status.503.rate < 10%  (0."), "\(outcome.output)")
        #expect(outcome.output.contains("  ✓ fixes.lost == 0  (0)"))
        #expect(outcome.output.contains("beekon-fleet: failed: 1 of 2 thresholds not met (exit 99)"))
    }

    @Test(
        """
        with the server down from the start, the default thresholds are reported and fail the run \
        only with --strict (exit 99, then 0 without it), and the run says no upload succeeded
        """)
    func serverDown() async throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let down = "http://127.0.0.1:9/ingest"
        let strict = try await Self.run(workspace, ingest: down, arguments: ["--strict"])
        #expect(strict.status == 99, "\(strict.output)\(strict.errors)")
        #expect(strict.output.contains("  ✗ upload.errors.rate < 0.05  (1.0)"), "\(strict.output)")
        #expect(strict.output.contains("no upload succeeded"), "\(strict.output)")
        try? FileManager.default.removeItem(atPath: workspace.data)
        let lenient = try await Self.run(workspace, ingest: down)
        #expect(lenient.status == 0, "\(lenient.output)\(lenient.errors)")
        #expect(lenient.output.contains("they count only with --strict"))
    }

    @Test("a bad --threshold or a fleet file the run cannot take exits 64, naming what is wrong")
    func usage() async throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let bad = try await Self.run(
            workspace, ingest: "http://127.0.0.1:9/ingest", arguments: ["--threshold", "fixes.lost"])
        #expect(bad.status == 64)
        #expect(bad.errors.contains("threshold `fixes.lost` has no comparison"), "\(bad.errors)")
        let path = workspace.folder.appendingPathComponent("broken.yaml").path
        try "name: x\ngroups: []\n".write(toFile: path, atomically: true, encoding: .utf8)
        let broken = try await ChildRun.runFleet(["run", path, "--data", workspace.data, "--admin", "off"])
        #expect(broken.status == 64)
        #expect(broken.errors.contains("broken.yaml:2:9: error: no groups"), "\(broken.errors)")
    }
}
