import FleetTestSupport
import Foundation
import IngestReceiver
import Synchronization
import Testing

/// `run --shard I/N` in N processes of the real binary against one receiver, and `report merge`
/// of their reports, against one process running the whole fleet.
@Suite("Shard processes", .serialized)
struct ShardProcessTests {
    /// 12 devices, faults on fractions of the fleet (the same devices whichever process runs
    /// them), and a threshold that fails (the modelled answer takes 100 ms) beside one that passes.
    static let fleetYAML = Workspace.yaml(
        devices: 12,
        faults: """
            faults:
              - {at: 5m, for: 3m, select: {fraction: 0.25}, action: networkOffline}
              - {at: 10m, for: 2m, select: {fraction: 0.5}, action: revokePermission}
              - {at: 14m, select: {fraction: 0.3}, action: kill}
            thresholds:
              - fixes.lost == 0
              - upload.latency.p99 < 1ms
            """)

    /// Runs the fleet (or one shard of it) to 30 virtual minutes at max warp.
    static func run(
        _ workspace: Workspace, ingest: String, data: String, report: String, extra: [String] = []
    ) async throws -> ChildRun.Result {
        try await offPool { try runBlocking(workspace, ingest: ingest, data: data, report: report, extra: extra) }
    }

    /// `run`, on the calling thread (one of `together`'s).
    static func runBlocking(
        _ workspace: Workspace, ingest: String, data: String, report: String, extra: [String] = []
    ) throws -> ChildRun.Result {
        try ChildRun.runBlocking(
            ChildRun.fleetExecutable,
            [
                "run", workspace.folder.appendingPathComponent("fleet.yaml").path, "--data", data, "--ingest", ingest,
                "--admin", "off", "--warp", "max", "--for", "30m", "--report", report,
            ] + extra)
    }

    /// What a receiver was sent, each upload once: who sent which batch, when, with how many fixes.
    static func uploads(_ receiver: IngestReceiver) -> [String] {
        receiver.uploadLog().map { "\($0.installID) \($0.sessionID) \($0.batchID) \($0.sentAt) \($0.locationCount)" }
            .sorted()
    }

    /// Runs `body` for 0..<`count` at once, each on a thread of its own (concurrentPerform runs no
    /// more at once than there are cores, and shards wait for one another); the results by index,
    /// and the errors of those that threw.
    static func together(
        _ count: Int, _ body: @escaping @Sendable (Int) throws -> ChildRun.Result
    ) -> (results: [Int: ChildRun.Result], failures: [String]) {
        let outcome = Mutex<(results: [Int: ChildRun.Result], failures: [String])>(([:], []))
        let done = DispatchGroup()
        for index in 0..<count {
            done.enter()
            Thread {
                do {
                    let result = try body(index)
                    outcome.withLock { $0.results[index] = result }
                } catch {
                    outcome.withLock { $0.failures.append("\(index): \(error)") }
                }
                done.leave()
            }.start()
        }
        done.wait()
        return outcome.withLock { $0 }
    }

    static func json(_ path: String) throws -> [String: Any] {
        try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }

    /// The report without what depends on the wall clock or on how the fleet was split: real
    /// seconds and rates per real second, the pace, the shard, the merge state, and the two
    /// documented bounds of a merge (the backlog's peak; a drain's length, read from 10-s rows).
    static func comparable(_ value: Any, key: String = "") -> Any {
        let wallClock: Set<String> = [
            "real_seconds", "per_second", "pace", "shard", "merge_state", "max_pending", "drain_ms",
            // The server's real answer times and the fleet's real waits differ from run to run.
            "server_latency_ms", "answer_wait_seconds", "behind_seconds", "connection_wait_ms",
        ]
        if let object = value as? [String: Any] {
            var kept: [String: Any] = [:]
            for (key, member) in object where !wallClock.contains(key) { kept[key] = comparable(member, key: key) }
            return kept
        }
        if let array = value as? [Any] { return array.map { comparable($0) } }
        return value
    }

    @Test(
        """
        four shard processes started together (--start-at) send exactly the batches one process sends, \
        and their merged report is the single run's report, with the same verdict and exit code
        """
    )
    func fourShardsAreOneFleet() async throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        try Self.fleetYAML.write(
            to: workspace.folder.appendingPathComponent("fleet.yaml"), atomically: true, encoding: .utf8)
        let folder = workspace.folder.path

        let single = try workspace.receiver()
        defer { single.stop() }
        let whole = try await Self.run(
            workspace, ingest: single.url, data: folder + "/whole", report: folder + "/whole.json")
        #expect(whole.status == 99, "the failing threshold fails the run: \(whole.output)\(whole.errors)")
        single.stop()

        let shared = try IngestReceiver(
            configuration: IngestReceiverConfiguration(
                port: 0, databasePath: folder + "/shared.db", threads: 2, keepsUploadLog: true))
        defer { shared.stop() }
        let startText = ISO8601DateFormatter().string(from: Date().addingTimeInterval(4))
        let startAt = try #require(ISO8601DateFormatter().date(from: startText))
        let shards = 4
        let (results, failures) = Self.together(shards) { index in
            try Self.runBlocking(
                workspace, ingest: shared.url, data: folder + "/shards", report: folder + "/shard-\(index).json",
                extra: ["--shard", "\(index)/\(shards)", "--start-at", startText])
        }
        #expect(failures.isEmpty)
        #expect(results.count == shards)
        for (index, result) in results.sorted(by: { $0.key < $1.key }) {
            #expect(result.status == 99, "shard \(index): \(result.output)\(result.errors)")
            #expect(!result.errors.contains("had passed"), "shard \(index) started late: \(result.errors)")
            #expect(result.output.contains("shard \(index)/\(shards): 3 of the fleet's 12 devices"), "\(result.output)")
            #expect(result.output.contains("data in \(folder)/shards/shard-\(index)-of-\(shards)"))
            #expect(result.output.contains("the clock starts at"))
        }
        #expect(Date() >= startAt, "the shards held until --start-at")
        shared.stop()

        // Exactly the batches one process sent: the same ids, senders, sessions, times and sizes.
        let sent = Self.uploads(single)
        #expect(sent.count > 30, "too few uploads to compare: \(sent.count)")
        #expect(Self.uploads(shared) == sent)
        #expect(Set(try shared.receivedFixes().map(\.id)) == Set(try single.receivedFixes().map(\.id)))

        // One verdict: the merged report is the single run's, failing as it did.
        let merge = try await ChildRun.run(
            ChildRun.fleetExecutable,
            ["report", "merge"] + (0..<shards).reversed().map { "\(folder)/shard-\($0).json" } + [
                "--report", folder + "/merged.json", "--html", folder + "/merged.html", "--csv", folder + "/merged",
            ])
        #expect(merge.status == 99, "\(merge.output)\(merge.errors)")
        #expect(merge.output.contains("failed: 1 of 2 thresholds not met (exit 99)"), "\(merge.output)")
        let wholeReport = try Self.json(folder + "/whole.json")
        let merged = try Self.json(folder + "/merged.json")
        #expect(merged["digest"] as? String == wholeReport["digest"] as? String)
        #expect(merge.output.contains("digest \(wholeReport["digest"] as? String ?? "-")"))
        let text = { (report: [String: Any]) in
            String(
                decoding: try JSONSerialization.data(withJSONObject: Self.comparable(report), options: [.sortedKeys]),
                as: UTF8.self)
        }
        let (mergedParts, wholeParts) = (
            Self.comparable(merged) as? [String: Any] ?? [:], Self.comparable(wholeReport) as? [String: Any] ?? [:]
        )
        let differing = mergedParts.keys.filter { key in
            let one = try? JSONSerialization.data(withJSONObject: [mergedParts[key]!], options: [.sortedKeys])
            let other = wholeParts[key].flatMap {
                try? JSONSerialization.data(withJSONObject: [$0], options: [.sortedKeys])
            }
            return one != other
        }
        #expect(try text(merged) == text(wholeReport), "differ: \(differing.sorted())")
        let peak = { (report: [String: Any]) in (report["fixes"] as? [String: Any])?["max_pending"] as? Int ?? -1 }
        #expect(peak(merged) >= peak(wholeReport))
        #expect(merged["shard"] is NSNull)
        for file in ["merged.html", "merged_stats.csv", "merged_fixes.csv", "merged_stats_history.csv"] {
            #expect(FileManager.default.fileExists(atPath: "\(folder)/\(file)"), "\(file)")
        }

        // Replicas that know no index (`auto/3`, sharing one data folder) each hold another, start
        // together once all three are there, and are the same fleet.
        let replicas = try workspace.receiver()
        defer { replicas.stop() }
        let held = Self.together(3) { _ in
            try Self.runBlocking(
                workspace, ingest: replicas.url, data: folder + "/replicas", report: folder + "/auto-{shard}.json",
                extra: ["--shard", "auto/3"])
        }.results.map(\.value)
        #expect(held.count == 3)
        #expect(held.allSatisfy { $0.status == 99 }, "\(held.map { $0.output + $0.errors })")
        #expect(
            Set(held.compactMap { result in (0..<3).first { result.output.contains("holds shard \($0)/3") } })
                == [0, 1, 2], "\(held.map(\.output))")
        let autoMerge = try await ChildRun.run(
            ChildRun.fleetExecutable, ["report", "merge"] + (0..<3).map { "\(folder)/auto-\($0).json" })
        #expect(autoMerge.status == 99, "\(autoMerge.output)\(autoMerge.errors)")
        #expect(autoMerge.output.contains("digest \(wholeReport["digest"] as? String ?? "-")"), "\(autoMerge.output)")

        // Not every shard, or not a shard's report: refused, naming what is wrong.
        let partial = try await ChildRun.run(
            ChildRun.fleetExecutable, ["report", "merge"] + (0..<3).map { "\(folder)/shard-\($0).json" })
        #expect(partial.status == 64)
        #expect(partial.errors.contains("shard 3/4 of the run \(folder)/shard-0.json is part of is missing"))
        let live = folder + "/live.json"
        try #"{"name": "test", "exit_code": null}"#.write(toFile: live, atomically: true, encoding: .utf8)
        let unmergeable = try await ChildRun.run(ChildRun.fleetExecutable, ["report", "merge", live])
        #expect(unmergeable.status == 64)
        #expect(unmergeable.errors.contains("\(live): has no merge_state"), "\(unmergeable.errors)")
        let missing = try await ChildRun.run(ChildRun.fleetExecutable, ["report", "merge", folder + "/none.json"])
        #expect(
            missing.status == 64 && missing.errors.contains("\(folder)/none.json: no such file"), "\(missing.errors)")
        let twice = try await ChildRun.run(
            ChildRun.fleetExecutable,
            ["report", "merge", "\(folder)/shard-1.json", "\(folder)/shard-1.json", "\(folder)/shard-2.json"])
        #expect(twice.status == 64)
        #expect(twice.errors.contains("are both shard 1/4"), "\(twice.errors)")
    }

    @Test(
        "--shard, --start-at and --linger refuse what they cannot take, naming the value and what was expected",
        arguments: [
            (["--shard", "4/4"], "shard index 4 is out of range; expected 0 to 3"),
            (["--shard", "0/0"], "0 shards is out of range"),
            (["--shard", "1"], #""1" is not a shard; expected INDEX/COUNT"#),
            (["--shard", "x/4"], #""x/4" is not a shard"#),
            (["--shard", "auto/0"], "0 shards is out of range"),
            (["--start-at", "tomorrow"], #""tomorrow" is not an instant; expected RFC 3339"#),
            (["--start-at", "2026-11-27T12:00:00"], "is not an instant"),
            (["--start-at", "2099-01-01T00:00:00Z"], "expected an instant at most 7 days from now"),
            (["--linger"], "--linger keeps the admin API up after the run; it needs --admin, not off"),
        ] as [([String], String)])
    func refused(arguments: [String], problem: String) async throws {
        let result = try await ChildRun.run(ChildRun.fleetExecutable, ["run", "--admin", "off"] + arguments)
        #expect(result.status == 64, "\(result.output)\(result.errors)")
        #expect(result.errors.contains(problem), "\(result.errors)")
    }
}
