import FleetDescription
import FleetTestSupport
import Foundation
import IngestReceiver
import Testing

@testable import FleetEngine
@testable import FleetRuntime

/// `flapping:` on the real driver, against the reference receiver over loopback: the addresses
/// each install's uploads come from, and what a replay sends.
@Suite("Flapping at the receiver", .serialized)
struct FlappingReceiverTests {
    /// 4 flapping walkers and 4 steady ones over 8 source addresses: the walkers leave from
    /// 127.0.0.2-5 on Wi-Fi and 127.0.0.6-9 on cellular; the steady ones from 127.0.0.6-9.
    static func yaml(flapping: String, warp: Int = 3000) -> String {
        """
        name: flapping
        seed: 11
        clock: {start: 2026-06-15T08:00:00Z, warp: \(warp)}
        network: {sourceAddresses: 127.0.0.2-127.0.0.9}
        groups:
          - name: walkers
            count: 4
            route: walk.csv
            pace: walk
            flapping: \(flapping)
            config: {preset: precision, whenStationary: keepTracking, sync: {syncThreshold: 5, intervalSeconds: 60}}
          - name: steady
            count: 4
            route: walk.csv
            pace: walk
            config: {preset: precision, whenStationary: keepTracking, sync: {syncThreshold: 5, intervalSeconds: 60}}
        """
    }

    /// The client addresses each install's uploads came from, by install id.
    static func addresses(_ server: IngestReceiver) -> [String: Set<String>] {
        server.uploadLog().reduce(into: [:]) { $0[$1.installID, default: []].insert($1.clientAddress) }
    }

    @Test(
        """
        phones that hand over at every drop reach the receiver from their Wi-Fi and their cellular \
        address, steady ones from one; every fix acknowledged is stored
        """
    )
    func handovers() async throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let server = try workspace.receiver()
        defer { server.stop() }
        let runtime = try await workspace.runtime(
            Self.yaml(flapping: "{meanOnline: 3m, meanOffline: 5s, handover: 1}"), ingest: server.url,
            virtualMinutes: 30, timing: .deterministic)
        let metrics = runtime.metrics
        #expect(metrics.handovers >= 8 && metrics.networkDrops == 0, "\(metrics.handovers) handovers")
        let byInstall = Self.addresses(server)
        let installs = try JSONDecoder().decode(
            [String: String].self, from: Data(contentsOf: URL(fileURLWithPath: "\(workspace.data)/devices.json")))
        for index in 0..<4 {
            let walker = try #require(installs[FleetLoop.deviceID(group: "walkers", index: index)])
            let steady = try #require(installs[FleetLoop.deviceID(group: "steady", index: index)])
            #expect(byInstall[walker] == ["127.0.0.\(2 + index)", "127.0.0.\(6 + index)"])
            #expect(byInstall[steady] == ["127.0.0.\(6 + index)"])
        }
        let stats = server.stats()
        #expect(stats.installsFromSeveralAddresses == 4)
        #expect(stats.fixesStored == metrics.fixes.ledger.acknowledged && stats.fixesStored > 0)
        #expect(metrics.fixes.unaccounted == 0)
    }

    /// One run of a fleet that drops and hands over: its digest, what the server got by install,
    /// and the addresses each install's uploads came from.
    static func replay(warp: Int, maxWarp: Bool = false, loops: Int = 1) async throws -> (
        digest: RequestDigest, uploads: [String: [String]], addresses: [String: Set<String>], flaps: [Int]
    ) {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let server = try workspace.receiver()
        defer { server.stop() }
        let runtime = try await workspace.runtime(
            Self.yaml(flapping: "{meanOnline: 2m, meanOffline: 40s, handover: 0.4}", warp: warp), ingest: server.url,
            virtualMinutes: 30, timing: .deterministic, maxWarp: maxWarp, loops: loops)
        let metrics = runtime.metrics
        return (
            metrics.sent, server.uploadsByInstall(), Self.addresses(server), [metrics.networkDrops, metrics.handovers]
        )
    }

    @Test(
        """
        the same seed drops and hands over at the same instants and sends the same requests from \
        the same addresses, at warp 600, 3000 and max, over 1 and 2 loops
        """
    )
    func replays() async throws {
        let first = try await Self.replay(warp: 3000)
        #expect(first.digest.count > 40, "too few requests to compare: \(first.digest.count)")
        #expect(first.flaps[0] > 5 && first.flaps[1] > 3, "drops and handovers: \(first.flaps)")
        for other in [
            try await Self.replay(warp: 600), try await Self.replay(warp: 3000, maxWarp: true),
            try await Self.replay(warp: 3000, loops: 2),
        ] {
            #expect(other.flaps == first.flaps)
            #expect(other.addresses == first.addresses)
            #expect(other.uploads == first.uploads)
            #expect(other.digest == first.digest)
        }
    }
}
