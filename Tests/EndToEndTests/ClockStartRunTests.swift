import BeekonDevice
import FleetTestSupport
import Foundation
import Testing

/// `beekon-fleet run --clock-start` pins a fresh run's virtual start, so a fleet whose
/// `clock.start` is `now` replays exactly, and the run's last lines say how to replay it.
@Suite("Run --clock-start and the replay line", .serialized)
struct ClockStartRunTests {
    /// A fleet of 5 walkers whose clock starts at `now`, as the demo fleet's does; its path.
    static func fleetFile(in workspace: Workspace) throws -> String {
        let path = workspace.folder.appendingPathComponent("fleet.yaml").path
        try Workspace.yaml(devices: 5)
            .replacingOccurrences(of: "start: 2026-06-15T08:00:00Z", with: "start: now")
            .write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// `beekon-fleet run ARGUMENTS`, to its end.
    static func run(_ arguments: [String]) async throws -> ChildRun.Result {
        try await ChildRun.run(ChildRun.fleetExecutable, ["run"] + arguments)
    }

    /// The line of `output` that starts with `prefix`, without the prefix.
    static func line(_ prefix: String, in output: String) -> String? {
        output.split(separator: "\n").first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }

    @Test(
        """
        two --deterministic runs of a clock.start: now fleet with one seed and --clock-start, on \
        fresh folders, start at that instant and print one digest; the replay line's command, run \
        as printed on a third fresh folder, prints it too
        """
    )
    func clockStartPinsTheStart() async throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let fleet = try Self.fleetFile(in: workspace)
        let flags = [
            "--seed", "3", "--clock-start", "2026-06-01T08:00:00Z", "--deterministic", "--warp", "max", "--for", "5m",
            "--admin", "off",
        ]
        var digests: [String] = []
        var replays: [String] = []
        for name in ["first", "second"] {
            let data = workspace.folder.appendingPathComponent(name).path
            let result = try await Self.run([fleet, "--data", data] + flags)
            #expect(result.status == 0, "\(result.output)\(result.errors)")
            #expect(
                result.output.contains(
                    "beekon-fleet: summary of \"test\": 2026-06-01T08:00:00.000Z → 2026-06-01T08:05:00.000Z "),
                "\(result.output)")
            digests.append(try #require(Self.line("beekon-fleet: sent ", in: result.output), "\(result.output)"))
            replays.append(try #require(Self.line("beekon-fleet: replay: ", in: result.output), "\(result.output)"))
        }
        #expect(digests[0] == digests[1])
        #expect(
            replays[0]
                == "beekon-fleet run \(fleet) --seed 3 --clock-start 2026-06-01T08:00:00.000Z --warp max "
                + "--timing modelled --for 5m --data FRESH-FOLDER")
        #expect(replays[1] == replays[0])

        // The replay, word for word (the fleet's path has no space to quote).
        let third = workspace.folder.appendingPathComponent("third").path
        let words = replays[0].split(separator: " ").map(String.init).dropFirst(2)
        let replayed = try await Self.run(words.map { $0 == "FRESH-FOLDER" ? third : $0 } + ["--admin", "off"])
        #expect(replayed.status == 0, "\(replayed.output)\(replayed.errors)")
        #expect(Self.line("beekon-fleet: sent ", in: replayed.output) == digests[0])
    }

    @Test(
        "a run whose answers took real time says a replay needs --timing modelled, and names the start it had"
    )
    func unmodelledRunSaysToAddDeterministic() async throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let fleet = try Self.fleetFile(in: workspace)
        let result = try await Self.run([
            fleet, "--data", workspace.data, "--warp", "3000", "--for", "2m", "--seed", "9", "--admin", "off",
            "--timing", "as-answered",
        ])
        #expect(result.status == 0, "\(result.output)\(result.errors)")
        let replay = try #require(Self.line("beekon-fleet: replay: ", in: result.output), "\(result.output)")
        #expect(replay.hasPrefix("this run's answers took their real time × the warp, which no run repeats; "))
        #expect(replay.contains("with --timing modelled, a run replays byte for byte: beekon-fleet run \(fleet) "))
        // The start is where this run's clock started (`now`), as its summary says.
        let start = try #require(replay.firstMatch(of: #/--clock-start (\S+) /#).map { String($0.1) })
        #expect(result.output.contains("beekon-fleet: summary of \"test\": \(start) → "), "\(result.output)")
        #expect(
            replay.hasSuffix(
                "--seed 9 --clock-start \(start) --warp 3000 --timing modelled --for 2m --data FRESH-FOLDER")
        )
    }

    @Test(
        """
        --clock-start refuses what is not an instant from 1970 to 9999, naming the flag, the value \
        and what was expected
        """,
        arguments: [
            ("tomorrow", #""tomorrow" is not an instant; expected RFC 3339 with its zone"#),
            ("2026-06-01T08:00:00", #""2026-06-01T08:00:00" is not an instant"#),
            ("2026-06-01", #""2026-06-01" is not an instant"#),
            ("1969-12-31T23:59:59Z", #""1969-12-31T23:59:59Z" is out of range; expected RFC 3339"#),
            ("", #""" is not an instant"#),
        ])
    func badClockStartIsRefused(value: String, problem: String) async throws {
        let result = try await Self.run(["--admin", "off", "--clock-start", value])
        #expect(result.status == 64, "\(result.output)\(result.errors)")
        #expect(result.errors.contains("'--clock-start <instant>'"), "\(result.errors)")
        #expect(result.errors.contains(problem), "\(result.errors)")
        #expect(result.errors.contains("from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z"), "\(result.errors)")
    }

    @Test(
        """
        --clock-start on a folder holding an earlier run is refused with where that run resumes, \
        and --fresh or another --data as the ways on; a resumed run's replay line says no fresh \
        folder replays it
        """
    )
    func clockStartOnAnEarlierRunIsRefused() async throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        // A fixed clock.start, which --clock-start overrides, and a resume does not use.
        let fleet = try RunStartTests.fleetFile(devices: 5, in: workspace)
        let flags = ["--warp", "max", "--for", "2m", "--admin", "off"]
        let first = try await Self.run(
            [fleet, "--data", workspace.data, "--clock-start", "2026-06-01T08:00:00Z"] + flags)
        #expect(first.status == 0, "\(first.output)\(first.errors)")
        let before = RunStartTests.listing(workspace.data)
        let resumesAt = Timestamp.text(
            unixMillis: try ResumeRunTests.clockRecord(workspace.data).latestPossibleMillis + 1)
        #expect(resumesAt.hasPrefix("2026-06-01T08:02:00."))

        let refused = try await Self.run(
            [fleet, "--data", workspace.data, "--clock-start", "2027-01-01T00:00:00Z"] + flags)
        #expect(refused.status == 64, "\(refused.output)\(refused.errors)")
        #expect(
            refused.errors.contains(
                "--clock-start 2027-01-01T00:00:00.000Z: the data folder \(workspace.data) holds an earlier run, "
                    + "which a run resumes at \(resumesAt) "), "\(refused.errors)")
        #expect(refused.errors.contains("--fresh discards that run and starts at 2027-01-01T00:00:00.000Z"))
        #expect(RunStartTests.listing(workspace.data) == before)

        let resumed = try await Self.run([fleet, "--data", workspace.data] + flags)
        #expect(resumed.status == 0, "\(resumed.output)\(resumed.errors)")
        #expect(resumed.output.contains("beekon-fleet: resuming at \(resumesAt), "), "\(resumed.output)")
        #expect(
            Self.line("beekon-fleet: replay: ", in: resumed.output)
                == "none from a fresh folder: this run resumed the devices of an earlier run on \(workspace.data), "
                + "with their sessions and pending fixes")
    }
}
