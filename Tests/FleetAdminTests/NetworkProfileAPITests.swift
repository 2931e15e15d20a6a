import Foundation
import Testing

/// `networkProfile` through the REST API, over real HTTP in front of the simulated fleet: taken
/// with the fleet file's keys, listed as a fault its own opposite ends, refused by field.
@Suite("Admin server: network profiles", .serialized)
struct NetworkProfileAPITests {
    @Test(
        """
        a networkProfile on every device begins a fault that DELETE ends; the devices' uploads are \
        heard after its latency meanwhile, and with the server's time alone after
        """
    )
    func applyAndEnd() async throws {
        let harness = try AdminHarness()
        let applied = await harness.call(
            "POST", "/api/v1/fleet/actions",
            body:
                #"{"action": "networkProfile", "selector": {"all": true}, "#
                + #""params": {"latency": {"median": 700, "tail": 0}}}"#
        )
        #expect(applied.status == 202 && applied.object["applied"] as? Int == 4, "\(applied.text)")
        harness.simulated.advance(byMillis: 3 * 60_000)
        let faults = await harness.call("GET", "/api/v1/faults").object["faults"] as? [[String: Any]] ?? []
        let fault = try #require(faults.first { $0["action"] as? String == "networkProfile" })
        #expect(fault["endable"] as? Bool == true && fault["phase"] as? String == "active")
        let latencies = { (device: [String: Any]) in
            (device["uploads"] as? [[String: Any]] ?? []).compactMap { $0["latencyMs"] as? Double }
        }
        let during = latencies(await harness.device("walkers-0001"))
        // The simulated server's own time, then the network's.
        let server = Double(AdminHarness.latencyMillis)
        #expect(!during.isEmpty && during.allSatisfy { $0 == server + 700 }, "\(during)")
        let number = try #require(fault["fault"] as? Int)
        let ended = await harness.call("DELETE", "/api/v1/faults/\(number)")
        #expect(ended.status == 200, "\(ended.text)")
        harness.simulated.advance(byMillis: 60_000)
        // The device's last uploads (newest first): the server's time alone.
        let after = latencies(await harness.device("walkers-0001")).prefix(5)
        #expect(after.count == 5 && after.allSatisfy { $0 == server }, "\(after)")
    }

    @Test(
        "a tail out of range, an unknown profile or key is refused with 400 naming the field",
        arguments: [
            (#"{"latency": {"median": 900, "tail": -1}}"#, "params.latency.tail"),
            (#"{"profile": "5g"}"#, "params.profile"),
            (#"{"latency": {"mean": 100}}"#, "params.latency.mean"),
        ])
    func refused(params: String, field: String) async throws {
        let harness = try AdminHarness()
        let answer = await harness.call(
            "POST", "/api/v1/fleet/actions",
            body: #"{"action": "networkProfile", "selector": {"all": true}, "params": \#(params)}"#)
        #expect(answer.status == 400 && answer.errorField == field, "\(answer.text)")
    }

    @Test(
        "a spawned group's spec takes network: as a fleet file does, and refuses a bad one by field",
        arguments: [
            (#""edge""#, 202, nil),
            (#"{"profile": "lte", "uplinkKbps": 2000}"#, 202, nil),
            (#"{"profile": "edge", "latency": {"tail": 100}}"#, 202, nil),
            (#"{"profile": "edge", "latency": {"p95": 100}}"#, 400, "spec.network.latency.p95"),
            (#"{"uplinkKbps": 0}"#, 400, "spec.network.uplinkKbps"),
        ] as [(String, Int, String?)])
    func spawnSpec(network: String, status: Int, field: String?) async throws {
        let harness = try AdminHarness()
        let answer = await harness.call(
            "POST", "/api/v1/devices",
            body: #"{"spec": {"name": "mobile", "count": 2, "route": "walk.csv", "network": \#(network)}}"#)
        #expect(answer.status == status, "\(answer.text)")
        if let field { #expect(answer.errorField == field, "\(answer.text)") }
    }
}
