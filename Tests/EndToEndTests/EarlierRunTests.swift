import BeekonDevice
import FleetDescription
import FleetTestSupport
import Foundation
import Testing

@testable import FleetEngine
@testable import FleetRuntime

/// A run resumes the earlier run on its data folder only when it is a run of the same fleet
/// uploading to the same ingest (`RunIdentity`, `run-identity.json`); otherwise `beekon-fleet run`
/// refuses before it changes anything, and `--resume` goes on anyway or `--fresh` discards it.
@Suite("Earlier run on the data folder", .serialized)
struct EarlierRunTests {
    /// 5 walkers that upload nothing in a few virtual minutes: every fix stays pending.
    static let yaml = Workspace.yaml(devices: 5, sync: "{syncThreshold: 1000, intervalSeconds: 3600}")

    static func fleetFile(_ yaml: String = Self.yaml, in workspace: Workspace) throws -> String {
        let path = workspace.folder.appendingPathComponent("fleet.yaml").path
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// `beekon-fleet run FLEET --data DATA` for 2 virtual minutes at max warp, then `more`.
    static func run(_ fleet: String, _ data: String, _ more: [String] = []) async throws -> ChildRun.Result {
        try await ChildRun.run(
            ChildRun.fleetExecutable,
            ["run", fleet, "--data", data, "--warp", "max", "--for", "2m", "--admin", "off"] + more)
    }

    @Test(
        """
        the identity of a run is its fleet's name, its groups and where each uploads (the \
        in-process receiver as such, whatever its port); its duration, warp, seed and counts are not
        """,
        arguments: [
            ("name: test", "duration: 1h\nname: test", nil),
            ("warp: 3000", "warp: 60", nil),
            ("seed: 7", "seed: 8", nil),
            ("count: 5", "count: 50", nil),
            (
                "name: test", "name: other",
                #"the data folder D holds a run of fleet "test"; this run is of fleet "other""#
            ),
            (
                "name: walkers", "name: runners",
                #"the data folder D holds a run of fleet "test" (groups "walkers"); this run has groups "runners""#
            ),
            (
                "name: test", "name: test\ningest: http://ingest.invalid/a",
                "the data folder D holds a run of fleet \"test\" uploading to the in-process receiver (D/ingest.db); "
                    + "this run uploads to http://ingest.invalid/a"
            ),
        ] as [(String, String, String?)])
    func identityOfAFleet(replacing: String, with: String, difference: String?) throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let held = RunIdentity(fleet: try workspace.fleet(Self.yaml), ingest: nil, inProcessReceiver: true)
        let edited = try workspace.fleet(Self.yaml.replacingOccurrences(of: replacing, with: with))
        // As `run` starts the in-process receiver: when no group has a URL to upload to.
        let this = RunIdentity(fleet: edited, ingest: nil, inProcessReceiver: edited.needsIngestURL)
        #expect(this.difference(from: held, dataDirectory: "D") == difference)
        #expect((this == held) == (difference == nil))
        // `--ingest` over the in-process receiver.
        #expect(
            RunIdentity(fleet: edited, ingest: "http://127.0.0.1:9000/ingest", inProcessReceiver: false)
                .difference(from: held, dataDirectory: "D")?
                .hasSuffix("uploads to http://127.0.0.1:9000/ingest") == true)
        #expect(try RunIdentity(json: held.json, path: "run-identity.json") == held)
    }

    @Test(
        """
        a second run on the folder of one that uploaded to the in-process receiver, with another \
        --ingest, is refused (exit 64) naming both and the ways on, and changes nothing
        """
    )
    func otherIngestIsRefused() async throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let fleet = try Self.fleetFile(in: workspace)
        let first = try await Self.run(fleet, workspace.data)
        #expect(first.status == 0, "\(first.output)\(first.errors)")
        var info = stat()
        #expect(stat(workspace.data + "/run-identity.json", &info) == 0 && info.st_mode & 0o777 == 0o600)
        let before = RunStartTests.listing(workspace.data)

        let second = try await Self.run(fleet, workspace.data, ["--ingest", "http://127.0.0.1:9/ingest"])
        #expect(second.status == 64, "\(second.output)\(second.errors)")
        #expect(
            second.errors.contains(
                "the data folder \(workspace.data) holds a run of fleet \"test\" uploading to the in-process receiver "
                    + "(\(workspace.data)/ingest.db); this run uploads to http://127.0.0.1:9/ingest. "
                    + "--resume resumes its devices anyway"), "\(second.errors)")
        #expect(second.errors.contains("--fresh discards them"), "\(second.errors)")
        #expect(!second.output.contains("running"), "\(second.output)")
        #expect(RunStartTests.listing(workspace.data) == before)
    }

    @Test("--resume goes on with the earlier run's devices against another ingest, which gets their pending fixes")
    func resumeAnyway() async throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let fleet = try Self.fleetFile(in: workspace)
        #expect(try await Self.run(fleet, workspace.data).status == 0)
        let pending = try ResumeRunTests.storedFixes(workspace.data)
        #expect(pending.count > 10)
        let server = try workspace.receiver()
        defer { server.stop() }

        let second = try await Self.run(fleet, workspace.data, ["--ingest", server.url, "--resume"])
        #expect(second.status == 0, "\(second.output)\(second.errors)")
        #expect(
            second.output.contains(
                "beekon-fleet: resuming anyway (--resume): the data folder \(workspace.data) holds a run of fleet "
                    + "\"test\" uploading to the in-process receiver"), "\(second.output)")
        #expect(second.output.contains("beekon-fleet: resuming at "), "\(second.output)")
        // The record is now this run's: a third run like it resumes without a word.
        let third = try await Self.run(fleet, workspace.data, ["--ingest", server.url])
        #expect(third.status == 0, "\(third.output)\(third.errors)")
        #expect(!third.output.contains("resuming anyway"), "\(third.output)")
    }

    @Test(
        """
        --fresh discards the earlier run (its stores, devices.json, clock.json, the in-process \
        receiver's database), says how many fixes were pending, and starts at clock.start
        """
    )
    func freshDiscards() async throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let fleet = try Self.fleetFile(in: workspace)
        #expect(try await Self.run(fleet, workspace.data).status == 0)
        let earlier = Set(try ResumeRunTests.storedFixes(workspace.data).map(\.id))
        #expect(earlier.count > 10)
        let installs = try JSONDecoder().decode(
            [String: String].self, from: Data(contentsOf: URL(fileURLWithPath: workspace.data + "/devices.json")))
        try Data("notes".utf8).write(to: URL(fileURLWithPath: workspace.data + "/notes.txt"))

        // Another seed: other install ids, so the earlier stores' folders must be gone.
        let fresh = try await Self.run(
            fleet, workspace.data, ["--ingest", "http://127.0.0.1:9/ingest", "--fresh", "--seed", "8"])
        #expect(fresh.status == 0, "\(fresh.output)\(fresh.errors)")
        #expect(
            fresh.output.contains(
                "beekon-fleet: --fresh: discarded the earlier run in \(workspace.data) (fleet \"test\": 5 devices, "
                    + "their stores and its clock), with \(earlier.count) fixes pending"), "\(fresh.output)")
        #expect(!fresh.output.contains("resuming at"), "\(fresh.output)")
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: workspace.data))
        #expect(!left.contains("ingest.db") && !left.contains(".discarding") && left.contains("notes.txt"), "\(left)")
        for install in installs.values {
            #expect(!FileManager.default.fileExists(atPath: "\(workspace.data)/devices/\(install)"))
        }
        #expect(Set(try ResumeRunTests.storedFixes(workspace.data).map(\.id)).isDisjoint(with: earlier))
        #expect(
            try ResumeRunTests.clockRecord(workspace.data).reachedMillis == Workspace.start + 2 * 60_000)
    }

    @Test("--resume and --fresh together are refused (exit 64), before anything is made")
    func resumeAndFreshAreRefused() async throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let fleet = try Self.fleetFile(in: workspace)
        let result = try await Self.run(fleet, workspace.data, ["--resume", "--fresh"])
        #expect(result.status == 64, "\(result.output)\(result.errors)")
        #expect(
            result.errors.contains("--resume goes on with the data folder's earlier run and --fresh discards it"),
            "\(result.errors)")
        #expect(!FileManager.default.fileExists(atPath: workspace.data))
    }

    @Test(
        """
        the same fleet and the in-process receiver again (on another port) resume as before, \
        without a word about the record; a folder without run-identity.json says once that it has none
        """
    )
    func sameRunResumesSilently() async throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let fleet = try Self.fleetFile(in: workspace)
        #expect(try await Self.run(fleet, workspace.data).status == 0)
        let second = try await Self.run(fleet, workspace.data, ["--for", "3m"])
        #expect(second.status == 0, "\(second.output)\(second.errors)")
        #expect(second.output.contains("beekon-fleet: resuming at 2026-06-15T08:02:00.001Z"), "\(second.output)")
        #expect(!second.output.contains("--resume") && !second.output.contains("does not record"), "\(second.output)")

        // As a folder from before run-identity.json: resumed, said once.
        try FileManager.default.removeItem(atPath: workspace.data + "/run-identity.json")
        let older = try await Self.run(fleet, workspace.data)
        #expect(older.status == 0, "\(older.output)\(older.errors)")
        #expect(
            older.output.contains(
                "beekon-fleet: the data folder \(workspace.data) does not record the fleet and ingest of its "
                    + "earlier run"),
            "\(older.output)")
        let after = try await Self.run(fleet, workspace.data)
        #expect(after.status == 0 && !after.output.contains("does not record"), "\(after.output)")
    }

    @Test("a discard cut short is finished by the next start: the folder never reads as a half-deleted run")
    func interruptedDiscardIsFinished() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let data = workspace.data
        // As a discard leaves it when cut short: devices.json moved aside, the rest still there.
        try FileManager.default.createDirectory(atPath: data + "/.discarding", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: data + "/devices/x", withIntermediateDirectories: true)
        try Data(#"{"walkers-0001":"x"}"#.utf8).write(to: URL(fileURLWithPath: data + "/.discarding/devices.json"))
        try ClockRecord(reachedMillis: 1_000, warp: 60, stopped: true).json
            .write(to: URL(fileURLWithPath: data + "/clock.json"))
        try Data("notes".utf8).write(to: URL(fileURLWithPath: data + "/notes.txt"))
        #expect(DataFolder.discardUnfinished(data))
        try DataFolder.discard(data)
        #expect(try FileManager.default.contentsOfDirectory(atPath: data) == ["notes.txt"])
        #expect(try DataFolder.earlierRun(data) == nil)
    }
}
