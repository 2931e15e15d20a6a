import BeekonDevice
import BeekonStore
import FleetTestSupport
import Foundation
import IngestReceiver
import Testing

/// `beekon-fleet run` with no ingest URL starts the reference receiver in-process, and a short
/// accelerated run through it delivers every admitted fix exactly once: the real driver, real
/// HTTP and a real receiver end to end (the delivery rules themselves are tested on the simulated
/// driver, `FleetRuntimeTests`).
@Suite("Run with the embedded receiver", .serialized)
struct EmbeddedReceiverRunTests {
    @Test(
        """
        a run with no ingest URL uploads to the in-process receiver, which \
        stores every delivered fix once and nothing admitted is lost
        """
    )
    func embeddedReceiverGetsEveryFixOnce() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let fleetPath = workspace.folder.appendingPathComponent("fleet.yaml").path
        try Workspace.yaml(devices: 20, sync: "{syncThreshold: 5, intervalSeconds: 60}")
            .replacingOccurrences(of: "warp: 3000", with: "warp: 600")
            .write(toFile: fleetPath, atomically: true, encoding: .utf8)
        let output = Pipe()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ChildRun.fleetExecutable)
        // 15 virtual minutes are 1.5 s at warp 600; the wall-clock limit only guards against a hang.
        process.arguments = [
            "run", fleetPath, "--data", workspace.data, "--for", "15m", "--duration", "60s", "--admin", "127.0.0.1:0",
            "--deterministic",
        ]
        process.standardOutput = output
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(printed)")
        #expect(printed.contains("the reference receiver runs in-process: ingest http://127.0.0.1:"))

        // What the fleet says it admitted, from its closing line.
        let done = try #require(printed.split(separator: "\n").last { $0.hasPrefix("beekon-fleet: done.") })
        let admitted = try #require(done.firstMatch(of: /fixes (\d+)/).flatMap { Int($0.1) })
        #expect(admitted > 100)

        // What the receiver stored, by id (its primary key: a duplicate cannot be stored twice).
        let delivered = Set(try IngestReceiver.receivedFixes(inDatabase: "\(workspace.data)/ingest.db").map(\.id))
        // What is still pending on the devices.
        let installs = try JSONDecoder().decode(
            [String: String].self, from: Data(contentsOf: URL(fileURLWithPath: workspace.data + "/devices.json")))
        var pending: Set<String> = []
        for install in installs.values {
            let store = try DeviceStore(path: "\(workspace.data)/devices/\(install)/beekon.db", retention: .syncing)
            pending.formUnion(try store.history(from: .min, to: .max).map(\.id.text))
            store.close()
        }
        #expect(!delivered.isEmpty)
        #expect(delivered.isDisjoint(with: pending), "a fix the receiver acknowledged is still pending")
        #expect(
            delivered.count + pending.count == admitted,
            "delivered \(delivered.count) + pending \(pending.count) ≠ admitted \(admitted)")
        #expect(printed.contains("duplicates seen: 0 batches, 0 fixes"))
    }
}
