import BeekonDevice
import FleetAdmin
import FleetRuntime
import Foundation
import Testing

/// `reinstall` and `upgrade` through the REST API, over real HTTP in front of the simulated fleet.
@Suite("Admin server: reinstalls and upgrades", .serialized)
struct ChurnAPITests {
    @Test(
        """
        a reinstall through the API gives the device a new install id, lists it dead until its user \
        opens it, and counts its pending fixes uninstalled
        """
    )
    func reinstall() async throws {
        let harness = try AdminHarness()
        // Offline: every fix stays pending until the reinstall wipes it.
        let offline = await harness.call(
            "POST", "/api/v1/devices/walkers-0001/actions", body: #"{"action": "networkOffline"}"#)
        #expect(offline.status == 202)
        harness.simulated.advance(byMillis: 60_000)
        let before = await harness.device("walkers-0001")
        let pending = try #require(before["pending"] as? Int)
        #expect(pending > 0, "\(before)")
        let answer = await harness.call(
            "POST", "/api/v1/devices/walkers-0001/actions",
            body: #"{"action": "reinstall", "params": {"openAfterSeconds": 30}}"#)
        #expect(answer.status == 202, "\(answer.text)")
        let after = await harness.device("walkers-0001")
        #expect(after["installId"] as? String != before["installId"] as? String)
        #expect(after["state"] as? String == "dead" && after["pending"] as? Int == 0)
        let fleet = await harness.call("GET", "/api/v1/fleet").object
        let fixes = try #require(fleet["fixes"] as? [String: Any])
        #expect(fixes["uninstalled"] as? Int == pending)
        let metrics = await harness.call("GET", "/metrics").text
        #expect(metrics.contains(#"beekon_fleet_fixes_uninstalled_total{group="walkers"} \#(pending)"#), "\(metrics)")
        harness.simulated.advance(byMillis: 31_000)
        #expect(await harness.device("walkers-0001")["state"] as? String != "dead")
    }

    @Test("an upgrade through the API changes the SDK version the device lists and uploads")
    func upgrade() async throws {
        let harness = try AdminHarness()
        harness.simulated.advance(byMillis: 10_000)
        let answer = await harness.call(
            "POST", "/api/v1/fleet/actions",
            body: #"{"action": "upgrade", "selector": {"all": true}, "params": {"sdkVersion": "0.2.0"}}"#)
        #expect(answer.status == 202 && answer.object["applied"] as? Int == 4, "\(answer.text)")
        #expect(await harness.device("walkers-0002")["sdkVersion"] as? String == "0.2.0")
        let from = harness.uploadsSent.count
        harness.simulated.advance(byMillis: 120_000)
        let later = harness.uploadsSent.dropFirst(from)
        #expect(!later.isEmpty)
        for request in later {
            let body = try #require(try JSONSerialization.jsonObject(with: Data(request.http.body)) as? [String: Any])
            #expect((body["device"] as? [String: Any])?["sdk_version"] as? String == "0.2.0")
        }
    }

    @Test(
        "an upgrade without a version, or with one that is not, and a reinstall opened too late are refused by field",
        arguments: [
            (#"{"action": "upgrade"}"#, "params.sdkVersion"),
            (#"{"action": "upgrade", "params": {"sdkVersion": "0 1"}}"#, "params.sdkVersion"),
            (#"{"action": "upgrade", "params": {"sdkVersion": 2}}"#, "params.sdkVersion"),
            (#"{"action": "reinstall", "params": {"openAfterSeconds": 2592001}}"#, "params.openAfterSeconds"),
        ])
    func refused(body: String, field: String) async throws {
        let harness = try AdminHarness()
        let answer = await harness.call("POST", "/api/v1/devices/walkers-0001/actions", body: body)
        #expect(answer.status == 400 && answer.errorField == field, "\(answer.text)")
    }
}
