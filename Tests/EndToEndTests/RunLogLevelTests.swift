import FleetTestSupport
import Foundation
import IngestReceiver
import Testing

/// `beekon-fleet run --log-level` and `BEEKON_LOG_LEVEL`, given to the real binary: the level
/// filters what the run logs on stderr, the flag wins over the variable, and what the run prints
/// on stdout (its progress and summary) is the same at every level.
@Suite("Run log level")
struct RunLogLevelTests {
    /// Runs `beekon-fleet run --timing as-answered` with `flags` for 7 real seconds, with
    /// `BEEKON_LOG_LEVEL` set to `variable` (unset when nil), against a receiver that answers 20 ms
    /// late: 60 virtual s at the fleet's warp 3000, so the first progress line, at 5 s, comes with
    /// the slow-server warning. Returns what it printed and how many uploads the receiver was sent.
    static func run(flags: [String], variable: String?) async throws -> (ChildRun.Result, uploads: Int) {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let server = try workspace.receiver { $0.script.latencyMillis = 20 }
        defer { server.stop() }
        let fleet = workspace.folder.appendingPathComponent("fleet.yaml").path
        try Workspace.yaml(devices: 5, sync: "{syncThreshold: 1, intervalSeconds: 60}")
            .write(toFile: fleet, atomically: true, encoding: .utf8)
        let outcome = try await Self.command(
            [
                "run", fleet, "--data", workspace.data, "--ingest", server.url, "--admin", "off", "--duration", "7s",
                "--timing", "as-answered",
            ] + flags,
            variable: variable)
        return (outcome, server.uploadLog().count)
    }

    /// Runs `beekon-fleet ARGUMENTS` to its end with `BEEKON_LOG_LEVEL` set to `variable` (unset
    /// when nil, whatever the test's own environment says).
    static func command(_ arguments: [String], variable: String?) async throws -> ChildRun.Result {
        try await ChildRun.runFleet(arguments, environment: ["BEEKON_LOG_LEVEL": variable])
    }

    static let warning = "beekon-fleet: warning: "
    static let slowServer = "took more than half the SDK's 30 s timeout in virtual time"
    static let debugLine = "beekon-fleet: debug: the virtual clock starts at=2026-06-15T08:00:00.000Z "

    @Test(
        """
        the slow-server warning shows at the default level and --log-level debug (with debug lines), \
        and neither shows at error, from the flag or the variable; the flag wins over the variable
        """,
        arguments: [
            ([], nil, true, false),
            (["--log-level", "debug"], nil, true, true),
            (["--log-level", "error"], "debug", false, false),
            ([], "error", false, false),
            (["--log-level", "warning"], "error", true, false),
        ] as [([String], String?, Bool, Bool)])
    func levelFilters(flags: [String], variable: String?, warns: Bool, debugs: Bool) async throws {
        let (outcome, uploads) = try await Self.run(flags: flags, variable: variable)
        #expect(outcome.status == 0, "\(outcome.errors)")
        #expect(uploads > 0, "no upload reached the receiver, so no answer was slow")
        let warned = outcome.errors.split(separator: "\n").contains {
            $0.hasPrefix(Self.warning) && $0.contains(Self.slowServer)
        }
        #expect(warned == warns, "\(outcome.errors)")
        #expect(outcome.errors.contains(Self.debugLine) == debugs, "\(outcome.errors)")
        // The run's output is not its log: the progress line and the summary print at every level.
        let lines = outcome.output.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("2026-06-15T") && $0.contains(" | devices: ") }, "\(outcome.output)")
        #expect(lines.last?.hasPrefix("beekon-fleet: done. ") == true, "\(outcome.output)")
        #expect(!outcome.output.contains(Self.slowServer), "a warning went to stdout: \(outcome.output)")
    }

    @Test(
        """
        a bad --log-level or BEEKON_LOG_LEVEL stops run and receive with \
        exit 64, naming the flag or the variable, the value and every level
        """,
        arguments: [
            (
                ["run", "--log-level", "loud"], nil,
                "The value 'loud' is invalid for '--log-level <level>': \"loud\" is"
            ),
            (
                ["receive", "--log-level=warn"], nil,
                "The value 'warn' is invalid for '--log-level <level>': \"warn\" is"
            ),
            (["run", "--admin", "off"], "loud", "BEEKON_LOG_LEVEL \"loud\" is"),
            (["receive", "--listen", "127.0.0.1:0"], "verbose", "BEEKON_LOG_LEVEL \"verbose\" is"),
        ] as [([String], String?, String)])
    func badLevel(arguments: [String], variable: String?, named: String) async throws {
        let outcome = try await Self.command(arguments, variable: variable)
        #expect(outcome.status == 64, "\(outcome.errors)")
        #expect(
            outcome.errors.contains(
                named + " not a log level; expected one of trace, debug, info, notice, warning, error, critical"),
            "\(outcome.errors)")
        #expect(outcome.output.isEmpty, "\(outcome.output)")
    }
}
