import BeekonDevice
import FleetAdmin
import FleetRuntime
import Foundation
import Testing

/// `getCurrentLocation`, `deleteLocations`, `shutdown`, `gpsJump` and `configure` through the
/// REST API (and `configure` from the timeline), over real HTTP in front of the simulated fleet:
/// what each does shows in the API at the virtual instant it was asked.
@Suite("Admin server: SDK calls and GPS jumps", .serialized)
struct SDKCallActionsAPITests {
    static func time(_ offset: Int64) -> String { AdminHarness.time(offset) }

    /// The `quality` of each fix device `id` uploaded, oldest first (nil for a good fix).
    static func uploadedQualities(_ harness: AdminHarness, _ id: String) throws -> [String?] {
        try harness.uploadsSent.filter { $0.device == id }.flatMap { request in
            let body = try #require(try JSONSerialization.jsonObject(with: Data(request.http.body)) as? [String: Any])
            return try #require(body["locations"] as? [[String: Any]]).map { $0["quality"] as? String }
        }
    }

    @Test(
        """
        getCurrentLocation answers with the next fix, and with unavailable where permission is revoked: \
        the device's detail shows the last answer, the fleet and /metrics count them
        """
    )
    func currentLocation() async throws {
        let harness = try AdminHarness()
        harness.simulated.advance(byMillis: 10_000)
        let revoked = await harness.call(
            "POST", "/api/v1/devices/walkers-0002/actions", body: #"{"action": "revokePermission"}"#)
        #expect(revoked.status == 202)
        let asked = await harness.call(
            "POST", "/api/v1/fleet/actions",
            body: #"{"action": "getCurrentLocation", "selector": {"ids": ["walkers-0001", "walkers-0002"]}}"#)
        #expect(asked.status == 202 && asked.object["applied"] as? Int == 2)
        // walkers-0002's answer came with the call; walkers-0001 waits for its provider's next fix.
        let refused = await harness.device("walkers-0002")
        let unavailable = try #require(refused["currentLocation"] as? [String: Any])
        #expect(unavailable["answer"] as? String == "unavailable")
        #expect(unavailable["reason"] as? String == "permissionRevoked")
        #expect(unavailable["at"] as? String == Self.time(10_000))
        #expect(unavailable["fix"] == nil)
        harness.simulated.advance(byMillis: 2_000)
        let device = await harness.device("walkers-0001")
        #expect(device["currentLocationCalls"] as? Int == 1)
        let answer = try #require(device["currentLocation"] as? [String: Any])
        #expect(answer["answer"] as? String == "fix" && answer["requestId"] as? Int == 1)
        let fix = try #require(answer["fix"] as? [String: Any])
        #expect(fix["latitude"] is Double && fix["longitude"] is Double)
        #expect(fix["timestamp"] as? String == answer["at"] as? String)
        #expect(await harness.device("walkers-0003")["currentLocation"] is NSNull, "an unasked device has an answer")
        let fleet = await harness.call("GET", "/api/v1/fleet").object
        #expect(fleet["currentLocation"] as? [String: Int] == ["fix": 1, "timedOut": 0, "unavailable": 1])
        let metrics = await harness.call("GET", "/metrics").text
        #expect(metrics.contains(#"beekon_fleet_current_location_answers_total{answer="fix"} 1"#))
        #expect(metrics.contains(#"beekon_fleet_current_location_answers_total{answer="unavailable"} 1"#))
    }

    @Test(
        """
        deleteLocations through the API deletes the stored fixes at or before its instant: the device's \
        locations start after it, and the fleet's fixes count them deleted
        """
    )
    func deleteLocations() async throws {
        let harness = try AdminHarness()
        // Offline, nothing is acknowledged: every fix stays in the stores.
        let offline = await harness.call(
            "POST", "/api/v1/fleet/actions", body: #"{"action": "networkOffline", "selector": {"all": true}}"#)
        #expect(offline.status == 202)
        harness.simulated.advance(byMillis: 30_000)
        let cut = Self.time(20_000)
        let deleted = await harness.call(
            "POST", "/api/v1/devices/walkers-0001/actions",
            body: #"{"action": "deleteLocations", "params": {"before": "\#(cut)"}}"#)
        #expect(deleted.status == 202, "\(deleted.text)")
        let listed =
            await harness.call("GET", "/api/v1/devices/walkers-0001/locations?limit=1000").object["locations"]
            as? [[String: Any]] ?? []
        let stamps = listed.compactMap { $0["timestamp"] as? String }
        #expect(!stamps.isEmpty && stamps.allSatisfy { $0 > cut }, "\(stamps.prefix(3))")
        let device = await harness.device("walkers-0001")
        let ledger = try #require(device["fixes"] as? [String: Int])
        #expect(ledger["deleted"] ?? 0 >= 15, "\(ledger)")
        #expect(ledger["pending"] == stamps.count && device["pending"] as? Int == stamps.count)
        let fixes = try #require(await harness.call("GET", "/api/v1/fleet").object["fixes"] as? [String: Any])
        #expect(fixes["deleted"] as? Int == ledger["deleted"])
        #expect(fixes["unaccounted"] as? Int == 0)
    }

    @Test("shutdown through the API leaves the device idle, its pending fixes kept")
    func shutdown() async throws {
        let harness = try AdminHarness()
        _ = await harness.call(
            "POST", "/api/v1/fleet/actions", body: #"{"action": "networkOffline", "selector": {"all": true}}"#)
        harness.simulated.advance(byMillis: 10_000)
        let pending = await harness.device("walkers-0001")["pending"] as? Int ?? 0
        let answer = await harness.call(
            "POST", "/api/v1/devices/walkers-0001/actions", body: #"{"action": "shutdown"}"#)
        #expect(answer.status == 202)
        harness.simulated.advance(byMillis: 10_000)
        let device = await harness.device("walkers-0001")
        #expect(device["state"] as? String == "idle")
        #expect(pending > 0 && device["pending"] as? Int == pending)
        #expect(await harness.history("walkers-0001").last == AdminHarness.Change(at: Self.time(10_000), state: "idle"))
        #expect(await harness.states()["walkers-0002"] == "tracking")
    }

    @Test(
        """
        gpsJump through the API lasts its forSeconds: the device uploads exactly two implausible_speed fixes, \
        the jump and the return
        """
    )
    func gpsJump() async throws {
        let harness = try AdminHarness()
        harness.simulated.advance(byMillis: 10_000)
        let jumped = await harness.call(
            "POST", "/api/v1/devices/walkers-0001/actions",
            body: #"{"action": "gpsJump", "params": {"meters": 5000, "forSeconds": 10}}"#)
        #expect(jumped.status == 202)
        harness.simulated.advance(byMillis: 60_000)
        let qualities = try Self.uploadedQualities(harness, "walkers-0001")
        #expect(qualities.count > 50)
        #expect(qualities.filter { $0 == "implausible_speed" }.count == 2, "\(qualities)")
        #expect(try Self.uploadedQualities(harness, "walkers-0002").allSatisfy { $0 != "implausible_speed" })
    }

    @Test(
        """
        configure works from the timeline and from the API: the detail shows the config in force, \
        syncing to the run's ingest
        """
    )
    func configure() async throws {
        let timeline =
            "faults:\n  - {at: 5s, select: {ids: [walkers-0001]}, action: configure, params: {config: {preset: saver}}}"
        let harness = try AdminHarness(faults: timeline)
        harness.simulated.advance(byMillis: 10_000)
        let fromFile = try #require(await harness.device("walkers-0001")["config"] as? [String: Any])
        #expect(fromFile["preset"] as? String == "saver")
        #expect((fromFile["sync"] as? [String: Any])?["url"] as? String == "http://ingest.invalid/ingest")
        let config = #"{"stationaryRadiusMeters": 50, "sync": {"intervalSeconds": 120}}"#
        let asked = await harness.call(
            "POST", "/api/v1/devices/walkers-0002/actions",
            body: #"{"action": "configure", "params": {"config": \#(config)}}"#)
        #expect(asked.status == 202, "\(asked.text)")
        let fromAPI = try #require(await harness.device("walkers-0002")["config"] as? [String: Any])
        #expect(fromAPI["stationaryRadiusMeters"] as? Double == 50)
        let sync = try #require(fromAPI["sync"] as? [String: Any])
        #expect(sync["intervalSeconds"] as? Int == 120 && sync["url"] as? String == "http://ingest.invalid/ingest")
        let sent = harness.uploadsSent.count
        // The new config's 120 s interval (its syncThreshold is the SDK's 0 now) sends what waits.
        harness.simulated.advance(byMillis: 125_000)
        #expect(harness.uploadsSent.dropFirst(sent).contains { $0.device == "walkers-0002" }, "it stopped uploading")
    }

    @Test(
        "a bad parameter of the new actions is 400 naming the field",
        arguments: [
            (#"{"action": "getCurrentLocation", "params": {"accuracy": "best"}}"#, "bad_request", "params.accuracy"),
            (#"{"action": "getCurrentLocation", "params": {"accuracy": 1}}"#, "bad_type", "params.accuracy"),
            (
                #"{"action": "getCurrentLocation", "params": {"timeoutSeconds": 601}}"#, "bad_request",
                "params.timeoutSeconds"
            ),
            (
                #"{"action": "getCurrentLocation", "params": {"timeoutSeconds": "15"}}"#, "bad_type",
                "params.timeoutSeconds"
            ),
            (#"{"action": "deleteLocations", "params": {"before": "yesterday"}}"#, "bad_request", "params.before"),
            (#"{"action": "deleteLocations", "params": {"before": 5}}"#, "bad_type", "params.before"),
            (#"{"action": "gpsJump", "params": {"meters": 0}}"#, "bad_request", "params.meters"),
            (#"{"action": "gpsJump", "params": {"bearing": -1}}"#, "bad_request", "params.bearing"),
            (#"{"action": "gpsJump", "params": {"forSeconds": 31622401}}"#, "bad_request", "params.forSeconds"),
            (#"{"action": "shutdown", "params": {"now": true}}"#, "unknown_field", "params.now"),
        ])
    func badParameter(body: String, code: String, field: String) async throws {
        let harness = try AdminHarness(devices: 1)
        let answer = await harness.call("POST", "/api/v1/devices/walkers-0001/actions", body: body)
        #expect(answer.status == 400, "\(answer.text)")
        #expect(answer.errorCode == code && answer.errorField == field, "\(answer.text)")
    }
}
