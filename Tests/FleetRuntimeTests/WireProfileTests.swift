import BeekonNet
import FleetDescription
import FleetEngine
import FleetRuntime
import FleetTestSupport
import Foundation
import IngestReceiver
import Testing

/// A modelled network on real sockets (`network:` uplink and resets), against the reference
/// receiver over loopback: what the server sees of a slow uplink and a link that breaks mid-body.
@Suite("Network profiles on the wire", .serialized)
struct WireProfileTests {
    static let yaml = """
        name: wire
        seed: 5
        clock: {start: 2026-06-15T08:00:00Z, warp: 120}
        groups:
          - name: slow
            count: 2
            platform: android
            route: walk.csv
            pace: walk
            network: {uplinkKbps: 2, latency: {median: 0ms, tail: 0ms}}
            config:
              preset: precision
              minTimeBetweenLocationsSeconds: 1
              minDistanceBetweenLocationsMeters: 0
              whenStationary: keepTracking
              sync: {syncThreshold: 60, batchSize: 60, intervalSeconds: 600}
          - name: cut
            count: 2
            platform: android
            route: walk.csv
            pace: walk
            network: {resetMidBody: 1, latency: {median: 0ms, tail: 0ms}}
            config:
              preset: precision
              minTimeBetweenLocationsSeconds: 1
              minDistanceBetweenLocationsMeters: 0
              whenStationary: keepTracking
              sync: {syncThreshold: 20, intervalSeconds: 60}
        """

    @Test(
        """
        a 2 kbit/s uplink at warp 120 reaches the server no faster than 30,000 bytes a second \
        (120 × 250), every fix it acknowledged stored; a link that resets mid-body leaves the \
        server truncated uploads, never more than the resets the devices heard, and nothing stored
        """)
    func slowAndCut() async throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let server = try workspace.receiver()
        defer { server.stop() }
        let runtime = try await workspace.runtime(
            Self.yaml, ingest: server.url, virtualMinutes: 10, timing: .deterministic)
        let metrics = runtime.metrics
        let resets = metrics.batchesByOutcome[.injected(.reset)] ?? 0
        #expect(resets > 5)
        // The receiver hears of a reset connection on its own thread: polled, never timed.
        var stats = server.stats()
        for _ in 0..<500 where stats.truncatedUploads.count < resets {
            try await Task.sleep(nanoseconds: 10_000_000)
            stats = server.stats()
        }
        // An RST may discard bytes the receiver had not read yet: a cut can leave no trace there,
        // never a whole request (nothing of the cut group is stored, below).
        #expect(stats.truncatedUploads.count >= 1 && stats.truncatedUploads.count <= resets, "\(resets) resets")
        #expect(stats.truncatedUploads.receivedBytes < stats.truncatedUploads.declaredBytes)
        // Only the slow group's uploads arrived whole, each paced: an upper bound on the speed
        // is a lower bound on the time, which a loaded machine cannot break.
        #expect(stats.devices == 2)
        #expect(stats.uploadBytesPerSecond.count > 0)
        #expect(stats.uploadBytesPerSecond.p99 <= 45_000, "\(stats.uploadBytesPerSecond.p99) B/s")
        #expect(stats.fixesStored == metrics.fixes.ledger.acknowledged && stats.fixesStored > 0)
        #expect(metrics.fixes.unaccounted == 0)
    }
}
