import BeekonNet
import FleetTestSupport
import Foundation
import HTTPMessage
import HTTPTypes
import Synchronization
import Testing

/// `beekon-fleet receive` as a child process: a 2xx never precedes the commit, and bad flags
/// are refused clearly.
@Suite("receive command", .serialized)
struct ReceiveCommandTests {
    /// The `beekon-fleet` executable, built next to the test bundle.
    static var executable: String { ChildRun.fleetExecutable }

    /// A started `receive` and the ingest URL it printed.
    struct Child {
        let process: Process
        let url: String
        let output: Pipe
        /// What it printed up to its address.
        let banner: String
    }

    /// Starts `receive ARGUMENTS` (under `ulimit -n openFiles` when given, without the test's
    /// `BEEKON_LOG_LEVEL`), its standard error to `errors`, and waits for its address.
    static func start(
        _ arguments: [String], openFiles: Int? = nil, errors: FileHandle = FileHandle.nullDevice
    ) throws -> Child {
        let process = Process()
        if let openFiles {
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments =
                ["-c", "ulimit -n \(openFiles) && exec \"$0\" \"$@\"", executable, "receive"] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = ["receive"] + arguments
        }
        var environment = ProcessInfo.processInfo.environment
        environment["BEEKON_LOG_LEVEL"] = nil
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        var text = ""
        let deadline = Date().addingTimeInterval(20)
        while !text.contains("database"), Date() < deadline {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let line = text.split(separator: "\n").first(where: { $0.contains("listening on ") }),
            let url = line.components(separatedBy: "listening on ").last
        else {
            process.terminate()
            throw HarnessError("receive printed no address: \(text)")
        }
        return Child(process: process, url: url, output: output, banner: text)
    }

    /// Runs `receive` with `arguments` to its end: the exit status and what it wrote to stderr.
    static func runToExit(_ arguments: [String]) throws -> (status: Int32, errors: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["receive"] + arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    @Test("SIGKILL right after a 2xx loses nothing: the rows are in the database")
    func sigkillAfterTwoHundred() async throws {
        #expect(
            FileManager.default.isExecutableFile(atPath: Self.executable),
            "beekon-fleet was not built next to the tests")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "beekon-receive-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let database = folder + "/ingest.db"
        let child = try Self.start(["--listen", "127.0.0.1:0", "--db", database])
        let pid = child.process.processIdentifier
        let harness = try ReceiverHarness()  // Only for its payload maker and client.
        var sent: [(batch: String, fixes: [String])] = []
        let killed = Mutex(false)
        for number in 1...5 {
            let payload = harness.payload(fixes: 40, events: 1)
            sent.append((payload.batchID.text, payload.locationIDs.map(\.text)))
            let body = try GzipCompressor().compress(payload.json)
            let last = number == 5
            let result: HTTPResult = await withCheckedContinuation { continuation in
                harness.transport.submit(
                    OutboundRequest(
                        url: child.url,
                        headerFields: HTTPFields(textPairs: [
                            ("Content-Type", "application/json"), ("Content-Encoding", "gzip"),
                        ]),
                        body: body, connectionKey: "device")
                ) { result in
                    // On the transport thread, the moment the 2xx arrives: no time for a late commit.
                    if last, let status = result.status, (200..<300).contains(status) {
                        kill(pid, SIGKILL)
                        killed.withLock { $0 = true }
                    }
                    continuation.resume(returning: result)
                }
            }
            #expect(result.status == 200)
        }
        child.process.waitUntilExit()
        #expect(killed.withLock { $0 })
        #expect(child.process.terminationReason == .uncaughtSignal)
        #expect(try ReceiverHarness.count("SELECT count(*) FROM batches", in: database) == 5)
        #expect(try ReceiverHarness.count("SELECT count(*) FROM locations", in: database) == 200)
        #expect(try ReceiverHarness.count("SELECT count(*) FROM geofence_events", in: database) == 5)
        let lastBatch = try #require(sent.last)
        #expect(
            try ReceiverHarness.count(
                "SELECT count(*) FROM locations WHERE batch_id = '\(lastBatch.batch)' AND id IN ("
                    + lastBatch.fixes.map { "'\($0)'" }.joined(separator: ",") + ")", in: database) == 40)
    }

    @Test("SIGTERM stops it cleanly with a summary")
    func sigterm() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "beekon-receive-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let child = try Self.start([
            "--listen", "127.0.0.1:0", "--db", folder + "/ingest.db", "--mix", "503:50", "--seed", "3",
        ])
        kill(child.process.processIdentifier, SIGTERM)
        child.process.waitUntilExit()
        #expect(child.process.terminationStatus == 0)
        let rest = String(decoding: child.output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(rest.contains("stopped"))
    }

    @Test(
        "bad flags and rules files are refused with the problem named",
        arguments: [
            (["--listen", "nowhere"], "ADDR:PORT"),
            (["--mix", "503=10"], "ANSWER:PERCENT"),
            (
                ["--fail-status", "999"],
                "--fail-status \"999\" is out of range; expected a whole number from 100 to 599"
            ),
            (
                ["--latency-ms", "1e16"],
                "--latency-ms \"1e16\" is not a whole number; expected a whole number from 0 to 3600000 ms"
            ),
            (
                ["--connection-timeout", "0"],
                "--connection-timeout \"0\" is out of range; expected a whole number from 1 to 3600 s"
            ),
            (["--max-inflated-bytes", "1.0"], "--max-inflated-bytes \"1.0\" is not a whole number"),
            (
                ["--memory-budget-bytes", "9223372036854775808"],
                "--memory-budget-bytes \"9223372036854775808\" is out of range"
            ),
            (["--per-ip-connection-limit", "x"], "--per-ip-connection-limit \"x\" is not a number"),
            (["--path", "ingest"], "must start with /"),
            (["--rules", "/nonexistent/rules.json"], "/nonexistent/rules.json: cannot read"),
        ])
    func badFlags(arguments: [String], expected: String) throws {
        let (status, text) = try Self.runToExit(
            ["--listen", "127.0.0.1:0", "--db", "/nonexistent/never.db"] + arguments)
        #expect(status == 64)
        #expect(text.contains(expected), "\(text)")
    }

    @Test("a rules file with a bad field fails the command with file and field")
    func badRulesFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("rules-\(UUID().uuidString).json").path
        try #"{"mix": [{"answer": 503, "percent": "ten"}]}"#.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (status, text) = try Self.runToExit(["--rules", path, "--db", "/nonexistent/never.db"])
        #expect(status != 0)
        #expect(text.contains("\(path): mix[0].percent: expected a number from 0 to 100 %"), "\(text)")
    }
}
