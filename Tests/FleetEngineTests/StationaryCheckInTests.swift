import FleetTestSupport
import Foundation
import Testing

@testable import FleetEngine
@testable import FleetRuntime

/// Check-ins while a device stands still, with the OS provider's realistic noise and outliers
/// (issue #16 item 10): noise no longer ends the stay, so its check-ins come every 15 minutes.
@Suite("Stationary check-ins under GPS noise")
struct StationaryCheckInTests {
    static func yaml(preset: String, seed: Int) -> String {
        """
        name: check-ins
        seed: \(seed)
        clock: {start: 2026-06-15T08:00:00Z, warp: 60}
        groups:
          - name: walkers
            count: 6
            platform: {ios: 0.5, android: 0.5}
            route: walk.csv
            pace: walk
            dwell: {every: 500, for: 1h}
            config:
              preset: \(preset)
              whenStationary: pauseWithCheckIns
              sync: {intervalSeconds: 60}
        """
    }

    /// The triggers of every fix each device uploaded, in order.
    static func triggers(_ fleet: SimulatedFleet) throws -> [String: [String]] {
        try SimulatedFleetTests.uploads(fleet).mapValues { uploads in
            try uploads.flatMap { try SimulatedFleetTests.locations($0).compactMap { $0["trigger"] as? String } }
        }
    }

    @Test(
        """
        an hour's stop gives a check_in every 15 minutes (3 or 4), no motion fix inside the stay, and one \
        motion fix when the walk goes on, at GPS, fused and cell accuracy
        """,
        arguments: ["precision", "balanced", "saver"], [11, 12, 13, 14])
    func checkInsEveryQuarterHour(preset: String, seed: Int) throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        var fleet = try workspace.simulated(Self.yaml(preset: preset, seed: seed))
        // 500 m at a walk is about 6 minutes; the stop lasts an hour; then the walk goes on.
        fleet.advance(byMillis: 80 * 60_000)
        let triggers = try Self.triggers(fleet)
        #expect(triggers.count == 6)
        for (device, sent) in triggers {
            let checkIns = sent.filter { $0 == "check_in" }.count
            let shown = sent.joined(separator: " ")
            #expect((3...4).contains(checkIns), "device \(device): \(checkIns) check-ins in \(shown)")
            #expect(sent.filter { $0 == "motion" }.count == 1, "device \(device): \(shown)")
        }
    }
}
