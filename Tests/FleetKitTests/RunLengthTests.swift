import FleetKit
import Foundation
import Testing

/// `beekon-fleet run` as a child process, ended by its own limits: `--for` and the fleet file's
/// `duration` on the virtual clock, `--duration` on the wall clock, whichever comes first.
@Suite("Run length", .serialized)
struct RunLengthTests {
    /// Two walkers that do not upload (no receiver needed) from a fixed start, with the fleet
    /// file's `duration` when given; runs them with `flags` at warp 3600 (an hour a second).
    static func run(fileDuration: String?, flags: [String]) async throws -> (outcome: RunStartTests.Outcome, seconds: Double) {
        try await offPool { try blockingRun(fileDuration: fileDuration, flags: flags) }
    }

    private static func blockingRun(fileDuration: String?, flags: [String]) throws -> (outcome: RunStartTests.Outcome, seconds: Double) {
        let workspace = try FleetRuntimeTests.Workspace()
        defer { workspace.cleanUp() }
        let path = workspace.folder.appendingPathComponent("fleet.yaml").path
        try FleetRuntimeTests.yaml(devices: 2, sync: "false")
            .replacingOccurrences(of: "seed: 7", with: "seed: 7" + (fileDuration.map { "\nduration: \($0)" } ?? ""))
            .write(toFile: path, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: FleetCrashTests.executable)
        process.arguments = ["run", path, "--data", workspace.data, "--warp", "3600", "--admin", "off"] + flags
        let output = Pipe()
        let errors = workspace.folder.appendingPathComponent("errors.txt").path
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: errors)
        let started = Date()
        try process.run()
        // A run whose limit is not honoured would never end: SIGTERM stops it (its summary then
        // says `Stopped.`), so the test fails on what it printed rather than hanging.
        let watchdog = DispatchWorkItem { [process] in process.terminate() }
        DispatchQueue.global().asyncAfter(deadline: .now() + 30, execute: watchdog)
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        watchdog.cancel()
        let seconds = Date().timeIntervalSince(started)
        let text = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        return (RunStartTests.Outcome(status: process.terminationStatus, output: printed, errors: text), seconds)
    }

    static let virtualEnd = "beekon-fleet: done. Ended by the virtual-time limit (30m of virtual time). 2026-06-15T08:30:00.000Z |"

    @Test(
        "a run with a virtual-time limit ends by itself at exactly start + limit, after that much virtual time at the warp",
        arguments: [
            (String?.none, ["--for", "30m"]),
            ("30m", []),
            ("8h", ["--for", "30m"]),  // --for wins over the file
            (nil, ["--for", "30m", "--duration", "1m"]),  // the virtual limit comes first at this warp
        ])
    func virtualLimit(fileDuration: String?, flags: [String]) async throws {
        let (outcome, seconds) = try await Self.run(fileDuration: fileDuration, flags: flags)
        #expect(outcome.status == 0, "\(outcome.errors)")
        let last = outcome.output.split(separator: "\n").last.map(String.init) ?? ""
        #expect(last.hasPrefix(Self.virtualEnd), "\(outcome.output)")
        // 30 virtual minutes at 3600x are 0.5 s of wall time; the bound above leaves room for
        // start-up on a busy machine while staying far below the wall-clock limit of 1 m.
        #expect(seconds >= 0.5 && seconds < 10, "\(seconds) s")
    }

    @Test("with both limits, the wall-clock one ends a run whose virtual limit is further away, and the summary says so")
    func wallClockFirst() async throws {
        let (outcome, seconds) = try await Self.run(fileDuration: "8h", flags: ["--duration", "1s"])
        #expect(outcome.status == 0, "\(outcome.errors)")
        let last = outcome.output.split(separator: "\n").last.map(String.init) ?? ""
        #expect(last.hasPrefix("beekon-fleet: done. Ended by the wall-clock limit (--duration 1s). 2026-06-15T0"), "\(outcome.output)")
        #expect(seconds >= 1 && seconds < 10, "\(seconds) s")
    }
}
