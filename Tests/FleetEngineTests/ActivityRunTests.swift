import BeekonDevice
import FleetTestSupport
import Foundation
import Testing

@testable import FleetEngine
@testable import FleetRuntime

/// `detectActivity` end to end on the simulated driver: what reaches the ingest's payloads.
@Suite("Activity detection in a run")
struct ActivityRunTests {
    /// Walkers at a named pace and drivers at a bare 13 m/s with 60 s stops at lights.
    static func yaml(detectActivity: Bool) -> String {
        let config = """
                config:
                  preset: precision
                  minTimeBetweenLocationsSeconds: 1
                  minDistanceBetweenLocationsMeters: 0
                  whenStationary: keepTracking
                  detectActivity: \(detectActivity)
                  sync: {syncThreshold: 5, intervalSeconds: 60}
            """
        return """
            name: activity
            seed: 11
            clock: {start: 2026-06-15T08:00:00Z, warp: 60}
            groups:
              - name: walkers
                count: 3
                platform: {ios: 0.5, android: 0.5}
                route: walk.csv
                pace: walk
            \(config)
              - name: drivers
                count: 3
                platform: {ios: 0.5, android: 0.5}
                route: walk.csv
                pace: 13
                dwell: {every: 500, for: 60s}
            \(config)
            """
    }

    /// Every location the ingest got, per device: its timestamp and its `activity` (nil when absent).
    static func locations(_ fleet: SimulatedFleet) throws -> [String: [(timestamp: Int64, activity: String?)]] {
        var result: [String: [(timestamp: Int64, activity: String?)]] = [:]
        for request in fleet.sent {
            guard case .upload = request.kind else { continue }
            for location in try SimulatedFleetTests.locations(request) {
                let text = try #require(location["timestamp"] as? String)
                let timestamp = try #require(Timestamp.unixMillis(parsing: text))
                result[request.device, default: []].append((timestamp, location["activity"] as? String))
            }
        }
        return result.mapValues { $0.sorted { $0.timestamp < $1.timestamp } }
    }

    @Test(
        "with detectActivity on, fixes are labelled by their motion: walkers walking, drivers automotive at lights too")
    func labelledByMotion() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let ingest = SimulatedIngest()
        var fleet = try workspace.simulated(Self.yaml(detectActivity: true), ingest: ingest)
        fleet.advance(byMillis: 15 * 60_000)
        #expect(ingest.malformed.isEmpty)
        let byDevice = try Self.locations(fleet)
        #expect(byDevice.count == 6)
        for (device, fixes) in byDevice {
            let slot = try #require(fleet.slot(device))
            let moving = slot.group == 0 ? "walking" : "automotive"
            let labels = fixes.map(\.activity)
            #expect(labels.first == "unknown", "\(device) did not start unknown")
            #expect(Set(labels.compactMap { $0 }).isSubset(of: ["unknown", moving]), "\(device): \(Set(labels))")
            #expect(labels.allSatisfy { $0 != nil }, "\(device) sent a fix without activity")
            // Once the first evidence has held, unknown is left for silences (tunnels) only.
            let settled = fixes.filter { $0.timestamp >= fixes[0].timestamp + 60_000 }
            let labelled = settled.count { $0.activity == moving }
            #expect(Double(labelled) >= 0.8 * Double(settled.count), "\(device): \(labelled) of \(settled.count)")
            if slot.group == 1 {
                let stopped = fixes.count {
                    slot.world.motion.position(afterMillis: $0.timestamp - slot.world.setOffAt).speed == 0
                        && $0.activity == moving
                }
                #expect(stopped > 0, "\(device) was never labelled automotive while standing at a light")
            }
        }
    }

    @Test("with detectActivity off, no location carries activity")
    func offSendsNone() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let ingest = SimulatedIngest()
        var fleet = try workspace.simulated(Self.yaml(detectActivity: false), ingest: ingest)
        fleet.advance(byMillis: 5 * 60_000)
        let byDevice = try Self.locations(fleet)
        #expect(byDevice.count == 6)
        #expect(byDevice.values.joined().allSatisfy { $0.activity == nil })
        let bodies = fleet.sent.map { String(decoding: $0.http.body, as: UTF8.self) }
        #expect(!bodies.contains { $0.contains("\"activity\"") })
    }
}
