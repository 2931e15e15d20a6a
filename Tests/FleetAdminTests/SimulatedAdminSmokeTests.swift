import BeekonDevice
import BeekonNet
import FleetAdmin
import FleetKit
import Foundation
import Testing

@Suite("Admin over the simulated driver")
struct SimulatedAdminSmokeTests {
    @Test("a spawn through the API answers at once, and the device's first upload is at an exact instant")
    func spawnAndUpload() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("beekon-simadmin-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var csv = "lat,lon\n"
        for index in 0...40 { csv += "\(51.5 + Double(index) * 0.00045),-0.12\n" }
        try csv.write(toFile: folder + "/walk.csv", atomically: true, encoding: .utf8)
        let fleet = try FleetFile.parse(
            yaml: AdminHarness.yaml(devices: 2, ingest: "http://ingest.invalid/ingest", warp: 60), file: "fleet.yaml", routeFolder: folder)
        let runtime = try SimulatedRuntime(
            fleet: fleet, options: RunOptions(dataDirectory: folder + "/data", routeFolder: folder)) { _ in .respond(status: 200, afterMillis: 80) }
        let admin = try AdminServer(runtime: runtime, configuration: AdminConfiguration(port: 0))
        defer { admin.stop() }
        let transport = try HTTPTransport()
        defer { transport.shutdown() }
        func call(_ method: String, _ path: String, _ body: String? = nil) async -> (Int, [String: Any]) {
            let request = HTTPRequest(
                url: "http://127.0.0.1:\(admin.port)" + path, method: method,
                headers: body == nil ? [] : [("Content-Type", "application/json")], body: Array((body ?? "").utf8),
                connectionKey: UUID().uuidString)
            let result = await withCheckedContinuation { continuation in transport.submit(request) { continuation.resume(returning: $0) } }
            guard case .response(let status, _, let bytes, _) = result else { return (0, [:]) }
            return (status, (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] ?? [:])
        }
        let spawned = await call("POST", "/api/v1/devices", #"{"group": "walkers", "count": 1}"#)
        #expect(spawned.0 == 202)
        #expect(spawned.1["ids"] as? [String] == ["walkers-0003"])
        runtime.advance(byMillis: 60_000)
        let uploads = await call("GET", "/api/v1/devices/walkers-0003/uploads")
        // Newest first: the device's first upload is the last listed.
        let first = try #require((uploads.1["uploads"] as? [[String: Any]])?.last)
        #expect(first["outcome"] as? String == "200")
        #expect(first["latencyMs"] as? Double == 80)
        let sent = try #require(runtime.sent.first { $0.device == "walkers-0003" })
        #expect(first["at"] as? String == Timestamp.text(unixMillis: sent.sentAt + 80))
    }
}
