import BeekonDevice
import BeekonStore
import FleetTestSupport
import Foundation
import IngestReceiver
import Synchronization
import Testing

@testable import FleetEngine
@testable import FleetRuntime

/// A run resumed on a data folder continues its virtual clock: nothing it stamps (fix, `sent_at`,
/// batch id) is earlier than anything the previous run stamped, however that run ended. A clean
/// stop is on the simulated driver; a SIGKILL of `beekon-fleet run` (whose last `clock.json` is
/// a real-time write) on the real one.
@Suite("Resumed run", .serialized)
struct ResumeRunTests {
    static let start = Workspace.start

    /// What an upload carried that has a time, from either server.
    struct Sent {
        var sentAt: Int64
        var batchID: String
        /// Empty from the receiver's upload log: its fixes are read from its database instead.
        var fixes: [(id: String, timestamp: Int64)]

        init(_ upload: SimulatedIngest.Upload) {
            sentAt = upload.sentAt
            batchID = upload.batchID
            fixes = Array(zip(upload.locationIDs, upload.timestamps))
        }

        init(_ upload: LoggedUpload) {
            sentAt = upload.sentAt
            batchID = upload.batchID
            fixes = []
        }
    }

    /// Everything one run left behind that carries a time: what the server received and what
    /// the stores still hold.
    struct Stamped {
        var fixIDs: Set<String> = []
        var batchIDs: Set<String> = []
        /// The earliest and the latest fix timestamp, `sent_at` or batch-id time of all of it.
        var earliest: Int64 = .max
        var latest: Int64 = .min
        var fixes = 0
        var uploads = 0

        mutating func add(_ instant: Int64) {
            earliest = min(earliest, instant)
            latest = max(latest, instant)
        }

        mutating func add(fix id: String, at timestamp: Int64) {
            fixIDs.insert(id)
            add(timestamp)
            fixes += 1
        }
    }

    /// The fixes every store of `data` holds, by id, with their timestamps.
    static func storedFixes(_ data: String) throws -> [(id: String, timestamp: Int64)] {
        try stores(data) { store in try store.history(from: .min, to: .max).map { ($0.id.text, $0.timestamp) } }
    }

    /// The batch each store last gave a `batch_id`: one the server may never have seen, which a
    /// later run sends as it was (its id, its `sent_at`).
    static func storedSentBatches(_ data: String) throws -> [SentBatch] {
        try stores(data) { store in try store.readState(.sentBatch).map { [$0] } ?? [] }
    }

    static func stores<Item>(_ data: String, _ read: (DeviceStore) throws -> [Item]) throws -> [Item] {
        let installs = try JSONDecoder().decode(
            [String: String].self, from: Data(contentsOf: URL(fileURLWithPath: data + "/devices.json")))
        var items: [Item] = []
        for install in installs.values {
            let store = try DeviceStore(path: "\(data)/devices/\(install)/beekon.db", retention: .syncing)
            defer { store.close() }
            items += try read(store)
        }
        return items
    }

    /// What `uploads` carried (their fixes, or the server's `received` ones), apart from fixes and
    /// batches in `earlier` (sent again, they keep the time they were first made), together with
    /// the fixes `data`'s stores hold.
    static func stamped(
        uploads: [Sent], received: [(id: String, timestamp: Int64)] = [], data: String,
        apartFrom earlier: Stamped = Stamped()
    ) throws -> Stamped {
        var result = Stamped()
        for upload in uploads {
            result.uploads += 1
            // A batch the earlier run assembled goes again with its id and its `sent_at`.
            if !earlier.batchIDs.contains(upload.batchID) {
                let batch = try #require(UUIDv7(upload.batchID), "batch_id \(upload.batchID)")
                result.batchIDs.insert(upload.batchID)
                result.add(batch.unixMillis)
                result.add(upload.sentAt)
            }
            for fix in upload.fixes where !earlier.fixIDs.contains(fix.id) {
                result.add(fix: fix.id, at: fix.timestamp)
            }
        }
        for fix in try received + storedFixes(data) where !earlier.fixIDs.contains(fix.id) {
            result.add(fix: fix.id, at: fix.timestamp)
        }
        for sent in try storedSentBatches(data) where !earlier.batchIDs.contains(sent.batchID.text) {
            result.batchIDs.insert(sent.batchID.text)
            result.add(sent.batchID.unixMillis)
            result.add(sent.assembledAt)
        }
        return result
    }

    static func clockRecord(_ data: String) throws -> ClockRecord {
        try ClockRecord(json: Data(contentsOf: URL(fileURLWithPath: data + "/clock.json")), path: "clock.json")
    }

    @Test(
        """
        a fresh data folder starts at clock.start with the provider's first fix 1 s \
        in, prints no resume line, and leaves a clock.json that says where it stopped
        """
    )
    func freshFolderStartsAtClockStart() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let ingest = SimulatedIngest()
        var fleet = try workspace.simulated(Workspace.yaml(devices: 5), ingest: ingest, virtualMinutes: 5)
        #expect(fleet.now == Self.start)
        #expect(fleet.runToEnd() == Self.start + 5 * 60_000)
        let stamped = try Self.stamped(uploads: ingest.uploads.map(Sent.init), data: workspace.data)
        #expect(stamped.fixes > 20)
        #expect(stamped.earliest == Self.start + 1_000)
        #expect(stamped.latest <= Self.start + 5 * 60_000)
        #expect(fleet.notices.isEmpty, "\(fleet.notices)")
        #expect(
            try Self.clockRecord(workspace.data)
                == ClockRecord(reachedMillis: Self.start + 5 * 60_000, warp: 3000, stopped: true))
    }

    @Test(
        """
        a run that stopped, resumed on its data folder, starts 1 ms after where it stopped and \
        says why: every fix, sent_at and batch id of the second run is later than all of the first
        """
    )
    func resumedAfterAStopIsLater() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let ingest = SimulatedIngest()
        let yaml = Workspace.yaml(devices: 5, sync: "{syncThreshold: 2, intervalSeconds: 60}")
        var first = try workspace.simulated(yaml, ingest: ingest)
        first.advance(byMillis: 10 * 60_000)
        first.finish()
        let firstUploads = ingest.uploads.count
        let before = try Self.stamped(uploads: ingest.uploads.map(Sent.init), data: workspace.data)
        #expect(before.uploads >= 10 && before.fixes >= 10, "\(before.uploads) uploads, \(before.fixes) fixes")
        #expect(before.latest == Self.start + 10 * 60_000)
        #expect(
            try Self.clockRecord(workspace.data)
                == ClockRecord(reachedMillis: Self.start + 10 * 60_000, warp: 3000, stopped: true))

        var second = try workspace.simulated(yaml, ingest: ingest)
        let resumed = RunStart(millis: Self.start + 10 * 60_000 + 1, reason: .stopped)
        #expect(second.now == resumed.millis)
        #expect(second.notices == [resumed.notice])
        second.advance(byMillis: 5 * 60_000)
        second.finish()
        let after = try Self.stamped(
            uploads: ingest.uploads.dropFirst(firstUploads).map(Sent.init), data: workspace.data, apartFrom: before)
        Self.expectLater(after, than: before)
    }

    /// The second run made something, all of it stamped after everything the first run stamped.
    static func expectLater(_ after: Stamped, than before: Stamped, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(
            after.uploads > 0 && after.fixes > 0, "the second run made nothing to compare",
            sourceLocation: sourceLocation)
        #expect(
            after.earliest > before.latest,
            """
            the second run stamped \(Timestamp.text(unixMillis: after.earliest)), \
            not after the first run's \(Timestamp.text(unixMillis: before.latest))
            """,
            sourceLocation: sourceLocation)
    }

    /// Starts `beekon-fleet run` on `fleet` and `data`, uploading to `server`.
    static func launch(
        _ fleet: String, data: String, server: IngestReceiver, duration: String? = nil, more: [String] = []
    ) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ChildRun.fleetExecutable)
        process.arguments =
            ["run", fleet, "--data", data, "--ingest", server.url, "--admin", "off"]
            + (duration.map { ["--duration", $0] } ?? [])
            + more
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        return (process, output)
    }

    /// Runs `beekon-fleet run` again on `data` for two real seconds, expects it to end well, and
    /// returns what it printed.
    static func resume(_ fleet: String, data: String, server: IngestReceiver) async throws -> String {
        let (second, secondOutput) = try launch(fleet, data: data, server: server, duration: "2s")
        let printed = try await offPool {
            let text = String(decoding: secondOutput.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            second.waitUntilExit()
            return text
        }
        #expect(second.terminationStatus == 0, "\(printed)")
        return printed
    }

    @Test(
        """
        beekon-fleet run at warp 3000 or at max warp with a fixed clock.start, killed \
        with SIGKILL, then resumed: past its last clock.json by the slack it allows, \
        every fix, sent_at and batch id of the second run is later than all of the first
        """,
        arguments: ["3000", "max"])
    func resumedAfterSIGKILLIsLater(warp: String) async throws {
        #expect(
            FileManager.default.isExecutableFile(atPath: ChildRun.fleetExecutable),
            "beekon-fleet was not built next to the tests")
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let server = try workspace.receiver()
        defer { server.stop() }
        let fleet = workspace.folder.appendingPathComponent("fleet.yaml").path
        try Workspace.yaml(devices: 5, sync: "{syncThreshold: 2, intervalSeconds: 60}")
            .write(toFile: fleet, atomically: true, encoding: .utf8)

        // The first run, killed mid-flight once it has sent a few uploads.
        let (first, firstOutput) = try Self.launch(fleet, data: workspace.data, server: server, more: ["--warp", warp])
        defer { if first.isRunning { kill(first.processIdentifier, SIGKILL) } }
        // At max warp the clock waits for each answer, so it takes more uploads to pass a minute.
        let enough = warp == "max" ? 300 : 10
        let sentEnough = try await offPool { server.waitForUploads(enough, seconds: 30) }
        #expect(sentEnough, "the first run sent too few uploads")
        kill(first.processIdentifier, SIGKILL)
        try await offPool {
            _ = firstOutput.fileHandleForReading.readDataToEndOfFile()
            first.waitUntilExit()
        }
        #expect(first.terminationReason == .uncaughtSignal)
        // A request already on the wire when the run died is still recorded by the server.
        try await Task.sleep(for: .milliseconds(300))
        let firstUploads = server.uploadLog()
        let before = try Self.stamped(
            uploads: firstUploads.map(Sent.init), received: server.receivedFixes(), data: workspace.data)
        #expect(before.uploads >= 10 && before.fixes >= 10, "\(before.uploads) uploads, \(before.fixes) fixes")
        // The run had gone well past clock.start, so a restart there would go back in time.
        #expect(before.latest > Self.start + 60_000)
        let record = try Self.clockRecord(workspace.data)
        #expect(!record.stopped)
        // At max warp the record is a horizon the clock had not passed: it covers all of it.
        #expect(record.latestPossibleMillis >= before.latest)
        #expect(record.warp == 3000)

        // The second run, on the same folder, for two real seconds (100 virtual minutes).
        let printed = try await Self.resume(fleet, data: workspace.data, server: server)
        let resumedAt = Timestamp.text(unixMillis: record.latestPossibleMillis + 1)
        #expect(printed.contains("beekon-fleet: resuming at \(resumedAt), "), "\(printed)")
        #expect(printed.contains("it did not stop cleanly"), "\(printed)")

        let after = try Self.stamped(
            uploads: server.uploadLog().dropFirst(firstUploads.count).map(Sent.init),
            received: server.receivedFixes(), data: workspace.data, apartFrom: before)
        Self.expectLater(after, than: before)
        // And it began no earlier than it had to: the first run's clock.json said where.
        #expect(after.earliest >= record.latestPossibleMillis + 1)
    }

    @Test(
        """
        beekon-fleet run at max warp, stopped with SIGTERM while devices stand at different \
        instants, then resumed: its clock.json covers the device furthest ahead, and every \
        fix, sent_at and batch id of the second run is later than all of the first
        """
    )
    func resumedAfterMaxWarpStopIsLater() async throws {
        #expect(
            FileManager.default.isExecutableFile(atPath: ChildRun.fleetExecutable),
            "beekon-fleet was not built next to the tests")
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        // Answers that take real time, so devices wait for theirs at different instants.
        let server = try workspace.receiver { $0.script.latencyMillis = 3 }
        defer { server.stop() }
        let fleet = workspace.folder.appendingPathComponent("fleet.yaml").path
        try Workspace.yaml(devices: 8, sync: "{syncThreshold: 2, intervalSeconds: 60}")
            .write(toFile: fleet, atomically: true, encoding: .utf8)

        let (first, firstOutput) = try Self.launch(
            fleet, data: workspace.data, server: server, more: ["--warp", "max"])
        defer { if first.isRunning { kill(first.processIdentifier, SIGKILL) } }
        let sentEnough = try await offPool { server.waitForUploads(300, seconds: 30) }
        #expect(sentEnough, "the first run sent too few uploads")
        kill(first.processIdentifier, SIGTERM)
        try await offPool {
            _ = firstOutput.fileHandleForReading.readDataToEndOfFile()
            first.waitUntilExit()
        }
        #expect(first.terminationStatus == 0)
        let firstUploads = server.uploadLog()
        let before = try Self.stamped(
            uploads: firstUploads.map(Sent.init), received: server.receivedFixes(), data: workspace.data)
        let record = try Self.clockRecord(workspace.data)
        #expect(record.stopped)
        #expect(
            record.latestPossibleMillis >= before.latest,
            """
            clock.json says \(Timestamp.text(unixMillis: record.reachedMillis)), \
            a device stamped \(Timestamp.text(unixMillis: before.latest))
            """
        )

        _ = try await Self.resume(fleet, data: workspace.data, server: server)
        let after = try Self.stamped(
            uploads: server.uploadLog().dropFirst(firstUploads.count).map(Sent.init),
            received: server.receivedFixes(), data: workspace.data, apartFrom: before)
        Self.expectLater(after, than: before)
    }

    @Test(
        """
        a clock file that is not what a run writes stops the run before it \
        starts, naming the file and what was expected, and is left as it was
        """,
        arguments: [
            ("{\"reached_unix_ms\": 17815104", "is not a JSON object"),
            (#"{"reached_unix_ms": 1781510400000, "warp": 60}"#, #"has no "stopped""#),
            (
                #"{"reached_unix_ms": 1781510400000, "warp": -3, "stopped": true}"#,
                #"has "warp" -3 that is out of range"#
            ),
        ])
    func corruptClockFileIsRefused(content: String, problem: String) throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        try FileManager.default.createDirectory(atPath: workspace.data, withIntermediateDirectories: true)
        let path = workspace.data + "/clock.json"
        try Data(content.utf8).write(to: URL(fileURLWithPath: path))
        let fleet = try workspace.fleet(Workspace.yaml(devices: 2))
        do {
            _ = try FleetRuntime(
                fleet: fleet,
                options: RunOptions(
                    dataDirectory: workspace.data, ingest: "http://127.0.0.1:9", routeFolder: workspace.folder.path))
            Issue.record("the run accepted \(content)")
        } catch {
            let message = "\(error)"
            #expect(message.contains("the clock file \(path) "), "\(message)")
            #expect(message.contains(problem), "\(message)")
            #expect(message.contains(ClockRecord.expected), "\(message)")
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == content)
    }

    @Test("a clock file that cannot be read (a folder in its place) stops the run with the file and the reason")
    func unreadableClockFileIsRefused() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let path = workspace.data + "/clock.json"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let fleet = try workspace.fleet(Workspace.yaml(devices: 2))
        #expect {
            _ = try FleetRuntime(
                fleet: fleet,
                options: RunOptions(
                    dataDirectory: workspace.data, ingest: "http://127.0.0.1:9", routeFolder: workspace.folder.path))
        } throws: { error in
            let message = "\(error)"
            return message.contains("the clock file \(path) cannot be read (") && message.contains(ClockRecord.expected)
        }
    }

    @Test("beekon-fleet run on a folder with a corrupt clock.json exits non-zero with the file named on standard error")
    func corruptClockFileFailsTheCommand() async throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let fleet = try RunStartTests.fleetFile(devices: 2, in: workspace)
        try FileManager.default.createDirectory(atPath: workspace.data, withIntermediateDirectories: true)
        let path = workspace.data + "/clock.json"
        try Data("not json".utf8).write(to: URL(fileURLWithPath: path))
        let outcome = try await ChildRun.runFleet([
            "run", fleet, "--data", workspace.data, "--ingest", "http://127.0.0.1:9", "--admin", "off",
        ])
        #expect(outcome.status != 0)
        #expect(outcome.errors.contains("the clock file \(path) is not a JSON object"), "\(outcome.errors)")
        #expect(!outcome.output.contains("running"), "\(outcome.output)")
    }
}
