import FleetTestSupport
import Foundation
import Testing

@testable import FleetEngine
@testable import FleetRuntime

/// How long a run lasts: `--for` and the fleet file's `duration` on the virtual clock, `--duration`
/// on the wall clock, whichever comes first. Which virtual limit holds is the engine's (on the
/// simulated driver); the limits ending `beekon-fleet run` as a child process are the real
/// driver's.
@Suite("Run length", .serialized)
struct RunLengthTests {
    /// Two walkers that do not upload (no receiver needed) from a fixed start, with the fleet
    /// file's `duration` when given.
    static func yaml(fileDuration: String?) -> String {
        Workspace.yaml(devices: 2, sync: "false")
            .replacingOccurrences(of: "seed: 7", with: "seed: 7" + (fileDuration.map { "\nduration: \($0)" } ?? ""))
    }

    @Test(
        """
        the run ends on the virtual clock at exactly start + --for, else \
        start + the fleet file's duration, and nothing is stamped after it
        """,
        arguments: [
            (String?.none, Int64?.some(30), Int64?.some(30)),
            ("30m", nil, 30),
            ("8h", 30, 30),  // --for wins over the file
            ("45s", 2, 2),
            (nil, nil, nil),  // no virtual end: the run goes on until stopped
        ])
    func virtualEnd(fileDuration: String?, forMinutes: Int64?, endMinutes: Int64?) throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        var fleet = try workspace.simulated(
            Self.yaml(fileDuration: fileDuration), ingest: SimulatedIngest(), virtualMinutes: forMinutes)
        let end = endMinutes.map { Workspace.start + $0 * 60_000 }
        #expect(fleet.engine.endsAt == end)
        #expect(fleet.runToEnd() == end)
        guard let end else { return }
        #expect(fleet.now == end)
        let stamps = try ResumeRunTests.storedFixes(workspace.data).map(\.timestamp)
        #expect(!stamps.isEmpty && stamps.allSatisfy { $0 <= end })
        #expect(try ResumeRunTests.clockRecord(workspace.data).reachedMillis == end)
    }

    /// Runs `beekon-fleet run` on `yaml(fileDuration:)` with `flags` at warp 3600 (an hour a
    /// second), off the cooperative pool; returns what it printed, how long it took, and the
    /// clock file it left.
    static func run(fileDuration: String?, flags: [String]) async throws -> (
        outcome: ChildRun.Result, seconds: Double, clock: ClockRecord?
    ) {
        try await offPool { try blockingRun(fileDuration: fileDuration, flags: flags) }
    }

    private static func blockingRun(fileDuration: String?, flags: [String]) throws -> (
        outcome: ChildRun.Result, seconds: Double, clock: ClockRecord?
    ) {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let path = workspace.folder.appendingPathComponent("fleet.yaml").path
        try yaml(fileDuration: fileDuration).write(toFile: path, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ChildRun.fleetExecutable)
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
        let clock = try? ResumeRunTests.clockRecord(workspace.data)
        return (ChildRun.Result(status: process.terminationStatus, output: printed, errors: text), seconds, clock)
    }

    @Test(
        """
        with both limits, the virtual one ends a run it comes first in: at exactly start \
        + --for, after that much virtual time at the warp, recorded as a clean stop there
        """
    )
    func virtualLimitFirst() async throws {
        let (outcome, seconds, clock) = try await Self.run(
            fileDuration: "8h", flags: ["--for", "30m", "--duration", "1m"])
        #expect(outcome.status == 0, "\(outcome.errors)")
        let last = outcome.output.split(separator: "\n").last.map(String.init) ?? ""
        #expect(
            last.hasPrefix(
                "beekon-fleet: done. Ended by the virtual-time limit (30m of virtual time). "
                    + "2026-06-15T08:30:00.000Z |"),
            "\(outcome.output)")
        // 30 virtual minutes at 3600x are 0.5 s of wall time; the bound above leaves room for
        // start-up on a busy machine while staying far below the wall-clock limit of 1 m.
        #expect(seconds >= 0.5 && seconds < 10, "\(seconds) s")
        #expect(clock == ClockRecord(reachedMillis: Workspace.start + 30 * 60_000, warp: 3600, stopped: true))
    }

    @Test(
        "with both limits, the wall-clock one ends a run whose virtual limit is further away, and the summary says so")
    func wallClockFirst() async throws {
        let (outcome, seconds, clock) = try await Self.run(fileDuration: "8h", flags: ["--duration", "1s"])
        #expect(outcome.status == 0, "\(outcome.errors)")
        let last = outcome.output.split(separator: "\n").last.map(String.init) ?? ""
        #expect(
            last.hasPrefix("beekon-fleet: done. Ended by the wall-clock limit (--duration 1s). 2026-06-15T0"),
            "\(outcome.output)")
        #expect(seconds >= 1 && seconds < 10, "\(seconds) s")
        #expect(clock?.stopped == true)
    }
}
