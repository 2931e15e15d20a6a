import BeekonDevice
import FleetTestSupport
import Foundation
import IngestReceiver
import Testing

@testable import FleetEngine
@testable import FleetRuntime

/// Network profiles on the real driver, uploading to the reference receiver with modelled
/// timing (`--deterministic`): the devices hear the network's time and failures, the receiver
/// gets every request the network let through and stores every fix.
@Suite("Network profiles against the reference receiver", .serialized)
struct NetworkProfileReceiverTests {
    /// Three groups of 3 walkers (a batch of 3 fixes a minute) on three networks.
    static let yaml = """
        name: networks
        seed: 5
        clock: {start: 2026-06-15T08:00:00Z, warp: 600}
        groups:
        \(group("plain", network: nil))
        \(group("slow", network: "{latency: {median: 300ms, tail: 0ms}}"))
        \(group("flaky", network: "{dns: 0.3, tls: 0.2}"))
        """

    static func group(_ name: String, network: String?) -> String {
        """
          - name: \(name)
            count: 3
            platform: android
            route: walk.csv
            pace: walk
            startOffset: random
        \(network.map { "    network: \($0)" } ?? "")
            config:
              preset: precision
              minTimeBetweenLocationsSeconds: 1
              minDistanceBetweenLocationsMeters: 0
              whenStationary: keepTracking
              sync: {syncThreshold: 3, intervalSeconds: 60}
        """
    }

    @Test(
        """
        each group hears the modelled server's 100 ms plus its network's time (300 ms on a fixed \
        latency), dns and tls failures are heard at once and never reach the receiver, and the \
        receiver stores every fix the devices sent
        """
    )
    func groupsHearTheirNetworks() async throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let server = try workspace.receiver()
        defer { server.stop() }
        let runtime = try await workspace.runtime(
            Self.yaml, ingest: server.url, virtualMinutes: 8, timing: .deterministic)
        let devices = runtime.snapshot.devices
        let expected: [String: Double] = ["plain": 100, "slow": 400, "flaky": 100]
        for (group, latency) in expected {
            let records = devices.filter { $0.group == group }.flatMap(\.uploads)
            try #require(records.count > 10, "\(group): \(records.count) uploads")
            for record in records {
                switch record.outcome {
                case .status(200): #expect(record.latencyMillis == latency, "\(group): \(record)")
                case .injected(.dns), .injected(.tls):
                    #expect(group == "flaky")
                    // A lookup or a handshake over a link with no latency fails at once.
                    #expect(record.latencyMillis == 0)
                default: Issue.record("\(group): \(record.outcome)")
                }
            }
        }
        // The flaky group's failures are the fleet's; the receiver saw only what went through.
        let flaky = runtime.metrics.uploadsByGroup[2].byOutcome
        let failed = (flaky[.injected(.dns)]?.count ?? 0) + (flaky[.injected(.tls)]?.count ?? 0)
        let answered = flaky[.status(200)]?.count ?? 0
        #expect(failed > 5 && answered > 5)
        let flakyInstalls = Set(devices.filter { $0.group == "flaky" }.map(\.installID))
        #expect(server.uploadLog().count { flakyInstalls.contains($0.installID) } == answered)
        // Every fix stored is at the receiver or still pending; none lost.
        let ledger = runtime.metrics.fixes.ledger
        #expect(ledger.lost == 0)
        let received = Set(try server.receivedFixes().map(\.id))
        #expect(received.count == ledger.acknowledged)
        #expect(received.count + ledger.pending == runtime.metrics.fixesStored)
        // The server's own time never holds the network's: on the simulated driver, where it is
        // exact (NetworkProfileRunTests); a real one under load bounds nothing in real ms.
    }
}
