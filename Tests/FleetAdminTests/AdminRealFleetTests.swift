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

    @Test(
        """
        a fleet split over 2 loops is one fleet to the API: its devices listed in order, a spawn's \
        ids from both loops, an action on ids of both, a delete and a device count routed to \
        where the devices run, and the counts the receiver's
        """
    )
    func twoLoops() async throws {
        // Longer than every call below takes on the busiest machine (each command waits for every
        // device to stand at one instant): 4 real minutes at warp 120, stopped once they are done.
        let harness = try AdminHarness(devices: 4, duration: "8h", fleet: .real(started: true), loops: 2)
        #expect(harness.real.runtime.loops == 2)
        let listing = await harness.call("GET", "/api/v1/devices?limit=1000")
        let listed = listing.object["devices"] as? [[String: Any]]
        #expect(listed?.compactMap { $0["id"] as? String } == (1...4).map { "walkers-000\($0)" }, "\(listing.text)")
        let spawned = await harness.call("POST", "/api/v1/devices", body: #"{"group": "walkers", "count": 3}"#)
        #expect(
            spawned.object["ids"] as? [String] == ["walkers-0005", "walkers-0006", "walkers-0007"], "\(spawned.text)")
        let revoked = await harness.call(
            "POST", "/api/v1/fleet/actions",
            body: #"{"action": "revokePermission", "selector": {"ids": ["walkers-0002", "walkers-0001"]}}"#)
        #expect(revoked.status == 202, "\(revoked.text)")
        #expect(revoked.object["ids"] as? [String] == ["walkers-0001", "walkers-0002"], "\(revoked.text)")
        for id in ["walkers-0001", "walkers-0002"] {
            #expect(await harness.device(id)["permission"] as? String == "revoked", "\(id)")
        }
        #expect(await harness.device("walkers-0003")["permission"] as? String == "granted")
        let unknown = await harness.call(
            "POST", "/api/v1/fleet/actions",
            body: #"{"action": "sync", "selector": {"ids": ["walkers-0001", "walkers-0099"]}}"#)
        #expect(unknown.status == 404 && unknown.errorField == "selector.ids", "\(unknown.text)")
        #expect(await harness.call("DELETE", "/api/v1/devices/walkers-0006").status == 204)
        #expect(await harness.call("GET", "/api/v1/devices/walkers-0006").status == 404)
        #expect(await harness.call("DELETE", "/api/v1/devices/walkers-0099").status == 404)
        let fleet = await harness.call("GET", "/api/v1/fleet").object
        #expect(fleet["devices"] as? Int == 6, "\(fleet)")
        let actions = await harness.call(
            "POST", "/api/v1/fleet/actions", body: #"{"action": "sync", "selector": {"all": true}}"#)
        #expect((actions.object["ids"] as? [String])?.count == 6, "\(actions.text)")
        let scaled = await harness.call("PATCH", "/api/v1/fleet", body: #"{"devices": 4}"#)
        #expect(scaled.status == 200, "\(scaled.text)")
        harness.real.runtime.stop()
        await harness.real.waitForEnd()
        let stored = harness.real.receiver.stats()
        let ended = await harness.call("GET", "/api/v1/fleet").object
        let fixes = (ended["fixes"] as? [String: Any] ?? [:]).compactMapValues { $0 as? Int }
        #expect(stored.batchesStored > 5 && stored.duplicateBatches == 0)
        // An upload the deleted device had on the wire is stored, but no one hears its 2xx: an
        // unheard acknowledgement, its fixes still pending.
        let unheard = (ended["fixes"] as? [String: Any])?["unheardAcknowledgements"] as? [String: Int] ?? [:]
        #expect(fixes["acknowledged"].map { $0 + (unheard["fixes"] ?? -1) } == stored.fixesStored, "\(ended)")
        #expect(fixes["unaccounted"] == 0 && fixes["lost"] == 0)
        let states = await harness.states()
        #expect(states.count == 6 && states["walkers-0006"] == nil, "\(states)")
    }

    /// Polls `GET /api/v1/fleet` until its `pace` satisfies `done` or `seconds` pass; the last pace.
    static func pace(
        _ harness: AdminHarness, seconds: Double, until done: ([String: Any]) -> Bool
    ) async -> [String: Any] {
        let deadline = Date().addingTimeInterval(seconds)
        var pace: [String: Any] = [:]
        repeat {
            pace = await harness.call("GET", "/api/v1/fleet").object["pace"] as? [String: Any] ?? [:]
            if done(pace) { break }
            try? await Task.sleep(nanoseconds: 200_000_000)
        } while Date() < deadline
        return pace
    }

    @Test(
        """
        a fleet far beyond what the machine can do (300 devices, a fix a second each, every answer waited for, \
        at warp 10,000) says it is behind its warp in GET /api/v1/fleet and /metrics
        """
    )
    func behindItsWarp() async throws {
        let harness = try AdminHarness(devices: 300, warp: 10_000, fleet: .real(started: false))
        harness.real.start()
        let pace = await Self.pace(harness, seconds: 30) { ($0["behind"] as? Bool) == true }
        #expect(pace["behind"] as? Bool == true, "\(pace)")
        #expect(pace["warp"] as? Double == 10_000)
        let achieved = try #require(pace["achievedWarp"] as? Double, "\(pace)")
        #expect(achieved < 9_000 || (pace["timerLatenessP99Ms"] as? Double ?? 0) > 1_000, "\(pace)")
        let metrics = await harness.call("GET", "/metrics").text
        #expect(metrics.contains("\nbeekon_fleet_behind 1\n"), "\(metrics)")
        #expect(metrics.contains("\nbeekon_fleet_achieved_warp "))
        #expect(metrics.contains("# TYPE beekon_fleet_timer_lateness_p99_seconds gauge\n"))
        // Seen behind: the run is stopped (it has no duration of its own).
        harness.real.runtime.stop()
        await harness.real.waitForEnd()
        let report = await harness.call("GET", "/api/v1/report").object["pace"] as? [String: Any] ?? [:]
        #expect((report["behind_seconds"] as? Double ?? 0) >= 1, "\(report)")
        #expect((report["min_achieved_warp"] as? Double ?? .infinity) < 9_000, "\(report)")
    }

    @Test("one device at warp 1 keeps up: not behind in GET /api/v1/fleet and /metrics, its achieved warp about 1")
    func keepsUp() async throws {
        let harness = try AdminHarness(devices: 1, warp: 1, fleet: .real(started: false))
        harness.real.start()
        // A window of a few readings: over the first half second alone, one late turn of a busy
        // machine would move the ratio by a tenth.
        try await Task.sleep(for: .seconds(4))
        let pace = await Self.pace(harness, seconds: 20) { $0["achievedWarp"] as? Double != nil }
        let achieved = try #require(pace["achievedWarp"] as? Double, "\(pace)")
        #expect(achieved > 0.9 && achieved < 1.1, "\(pace)")
        #expect(pace["behind"] as? Bool == false && pace["warp"] as? Double == 1, "\(pace)")
        let metrics = await harness.call("GET", "/metrics").text
        #expect(metrics.contains("\nbeekon_fleet_behind 0\n"), "\(metrics)")
    }
}
