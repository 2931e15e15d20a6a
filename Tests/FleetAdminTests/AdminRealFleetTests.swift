import FleetAdmin
import Foundation
import Testing

/// The admin server in front of a real `FleetRuntime` (wall clock × warp, libcurl) uploading to
/// a real IngestReceiver: only what the simulated driver cannot show, a real loop's phases and
/// one run end to end.
@Suite("Admin server over a real fleet", .serialized)
struct AdminRealFleetTests {
    @Test(
        """
        GET /healthz follows a real loop: 503 starting before it runs, \
        200 running while it runs, 503 stopping once asked to stop
        """
    )
    func healthPhases() async throws {
        let harness = try AdminHarness(token: "s3cret", fleet: .real(started: false))
        let starting = await harness.call("GET", "/healthz", token: "")
        #expect(starting.status == 503 && starting.text == #"{"status":"starting"}"#)
        harness.real.start()
        let running = await harness.call("GET", "/healthz", token: "")
        #expect(running.status == 200 && running.text == #"{"status":"running"}"#)
        harness.real.runtime.stop()
        let stopping = await harness.call("GET", "/healthz", token: "")
        #expect(stopping.status == 503 && stopping.text == #"{"status":"stopping"}"#)
    }

    @Test(
        """
        end to end: a real run (2 virtual minutes at warp 120) uploads to a real receiver, \
        a spawn through the API included, and the API counts what the receiver stored
        """
    )
    func endToEnd() async throws {
        let harness = try AdminHarness(duration: "2m", fleet: .real(started: false))
        // Asked as the loop starts: it takes the spawn at one of its first turns, well inside the run.
        async let spawning = harness.call("POST", "/api/v1/devices", body: #"{"group": "walkers", "count": 1}"#)
        harness.real.start()
        let spawned = await spawning
        #expect(spawned.status == 202 && spawned.object["ids"] as? [String] == ["walkers-0005"], "\(spawned.text)")
        await harness.real.waitForEnd()
        let stored = harness.real.receiver.stats()
        let fleet = await harness.call("GET", "/api/v1/fleet").object
        #expect(fleet["virtualTimeMillis"] as? Int == fleet["endsAtMillis"] as? Int)
        #expect(fleet["devices"] as? Int == 5)
        let batches = fleet["batches"] as? [String: Any] ?? [:]
        #expect(stored.batchesStored > 5 && stored.duplicateBatches == 0)
        #expect(batches["byOutcome"] as? [String: Int] == ["200": stored.batchesStored], "\(stored)")
        let fixes = (fleet["fixes"] as? [String: Any] ?? [:]).compactMapValues { $0 as? Int }
        #expect(fixes["acknowledged"] == stored.fixesStored)
        #expect(fixes["unaccounted"] == 0 && fixes["lost"] == 0)
        let installID = try #require(await harness.device("walkers-0005")["installId"] as? String)
        #expect(stored.lastSeenByDevice[installID] != nil, "the spawned device's uploads did not reach the receiver")
        #expect(await harness.call("GET", "/healthz").status == 503)
    }
}
