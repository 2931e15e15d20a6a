import FleetTestSupport
import Foundation
import IngestReceiver
import Testing

/// The `captivePortal` fault end to end: a run against the reference receiver, then `verify`.
@Suite("Captive portal, verified", .serialized)
struct CaptivePortalRunTests {
    @Test(
        """
        half the fleet behind a portal answering 200 for 10 minutes: the receiver stores the fleet's \
        acknowledged fixes less those the portal took; verify counts those portal_dropped (a phone's \
        loss, never the server's) and passes with server.lost == 0
        """)
    func verified() async throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let receiver = try workspace.receiver()
        defer { receiver.stop() }
        let path = workspace.folder.appendingPathComponent("fleet.yaml").path
        let faults = """
            faults:
              - {at: 5m, for: 10m, select: {fraction: 0.5}, action: captivePortal, params: {answer: html200}}
            """
        try Workspace.yaml(devices: 10, sync: "{syncThreshold: 5, intervalSeconds: 60}", faults: faults)
            .write(toFile: path, atomically: true, encoding: .utf8)
        let report = workspace.folder.appendingPathComponent("run.json").path
        let run = try await ChildRun.runFleet([
            "run", path, "--data", workspace.data, "--admin", "off", "--warp", "max", "--for", "30m", "--ingest",
            receiver.url, "--report", report,
        ])
        #expect(run.status == 0, "\(run.output)\(run.errors)")
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any])
        let fixes = try #require(json["fixes"] as? [String: Any])
        let acknowledged = try #require(fixes["acknowledged"] as? Int)
        let dropped = try #require(fixes["portal_acknowledgements_fixes"] as? Int)
        #expect(dropped > 0 && (fixes["portal_acknowledgements_batches"] as? Int ?? 0) > 0)
        #expect(receiver.stats().fixesStored == acknowledged - dropped)
        let verify = try await ChildRun.runFleet([
            "verify", "--data", workspace.data, "--db", workspace.folder.appendingPathComponent("receiver.db").path,
            "--json",
        ])
        #expect(verify.status == 0, "\(verify.output)\(verify.errors)")
        let truth = try #require(try JSONSerialization.jsonObject(with: Data(verify.output.utf8)) as? [String: Any])
        let verdicts = try #require(truth["fixes"] as? [String: Int])
        #expect(verdicts["portal_dropped"] == dropped)
        #expect(verdicts["lost"] == 0)
        #expect(verdicts["acknowledged_stored"] == acknowledged - dropped)
    }
}
