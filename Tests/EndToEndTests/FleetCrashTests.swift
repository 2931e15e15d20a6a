import BeekonDevice
import BeekonStore
import FleetTestSupport
import Foundation
import IngestReceiver
import Testing

/// `beekon-fleet run` killed with SIGKILL loses no admitted fix: every fix an upload carried
/// (and the server refused) is still in its device's store, and a second run delivers it.
@Suite("Fleet crash", .serialized)
struct FleetCrashTests {
    @Test(
        """
        SIGKILL of the fleet process loses no admitted fix: each store's ledger adds up as the kill left \
        it, and the resumed run carries its pending fixes over, delivers them, and accounts for every one, \
        with the devices over one loop or several, and resumed over another count
        """,
        arguments: [(1, 1), (2, 3)])
    func sigkillLosesNothing(killedLoops: Int, resumedLoops: Int) async throws {
        #expect(
            FileManager.default.isExecutableFile(atPath: ChildRun.fleetExecutable),
            "beekon-fleet was not built next to the tests")
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        // Every upload is stored, then answered 503: the server has its fixes, the device keeps them.
        let server = try workspace.receiver {
            $0.script = AnswerScript(mix: [MixEntry(.status(503), percent: 100)], storeBeforeFault: true)
        }
        defer { server.stop() }
        let fleetPath = workspace.folder.appendingPathComponent("fleet.yaml").path
        try Workspace.yaml(devices: 5, sync: "{syncThreshold: 2, intervalSeconds: 60}")
            .replacingOccurrences(of: "warp: 3000", with: "warp: 600")
            .write(toFile: fleetPath, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ChildRun.fleetExecutable)
        process.arguments = [
            "run", fleetPath, "--data", workspace.data, "--ingest", server.url, "--admin", "off",
            "--loops", "\(killedLoops)",
        ]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // Kill it mid-run, once it has sent a few uploads (which the server refused).
        _ = server.waitForUploads(10, seconds: 20)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        // Stopping commits every upload the server took, so the database has all it saw.
        server.stop()
        let sent = Set(try server.receivedFixes().map(\.id))
        #expect(!sent.isEmpty)

        // Every fix the server saw is still stored: nothing admitted was lost.
        let installs = try JSONDecoder().decode(
            [String: String].self, from: Data(contentsOf: URL(fileURLWithPath: workspace.data + "/devices.json")))
        var stored: Set<String> = []
        for install in installs.values {
            let store = try DeviceStore(path: "\(workspace.data)/devices/\(install)/beekon.db", retention: .syncing)
            let fixes = try store.history(from: .min, to: .max).map(\.id.text)
            stored.formUnion(fixes)
            // The ledger the killed process committed: every fix it admitted is still pending
            // (every upload was answered 503), none lost, none unaccounted.
            let ledger = try #require(store.ledger)
            #expect(ledger.unaccounted == 0 && ledger.lost == 0 && ledger.acknowledged == 0, "\(ledger)")
            #expect(ledger.pending == fixes.count && ledger.admitted == fixes.count, "\(ledger)")
            store.close()
        }
        #expect(sent.isSubset(of: stored), "\(sent.subtracting(stored).count) fixes were lost")

        // Resumed against a healthy server (another ingest URL: so `--resume`): what the killed run
        // left pending is carried over and delivered, and the run accounts for every fix.
        let healthy = try workspace.receiver()
        defer { healthy.stop() }
        let report = workspace.folder.appendingPathComponent("run.json").path
        let resumed = try await ChildRun.run(
            ChildRun.fleetExecutable,
            [
                "run", fleetPath, "--data", workspace.data, "--ingest", healthy.url, "--admin", "off", "--warp", "max",
                "--for", "30m", "--report", report, "--threshold", "fixes.lost == 0", "--loops", "\(resumedLoops)",
                "--resume",
            ])
        #expect(resumed.status == 0, "\(resumed.output)\(resumed.errors)")
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any])
        let fixes = try #require(json["fixes"] as? [String: Int])
        #expect(fixes["carried_over"] == stored.count, "\(fixes)")
        #expect(fixes["unaccounted"] == 0 && fixes["lost"] == 0, "\(fixes)")
        healthy.stop()
        let delivered = Set(try healthy.receivedFixes().map(\.id))
        #expect(
            stored.isSubset(of: delivered), "\(stored.subtracting(delivered).count) carried-over fixes never arrived")
        #expect(delivered.count == fixes["acknowledged"], "each acknowledged fix arrived once")
    }
}
