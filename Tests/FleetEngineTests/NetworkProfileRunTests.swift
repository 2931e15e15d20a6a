import BeekonDevice
import BeekonNet
import FleetTestSupport
import Foundation
import Testing

@testable import FleetDescription
@testable import FleetEngine
@testable import FleetRuntime

/// Network profiles on the simulated driver: what devices hear, at exact virtual instants, and
/// what reaches the simulated ingest.
@Suite("Network profiles on the simulated driver")
struct NetworkProfileRunTests {
    /// Walkers uploading every minute (5 fixes a batch), in a group on `network` (none when nil)
    /// and a group of 5 on no network beside it.
    static func yaml(network: String?, devices: Int = 20, faults: String = "") -> String {
        """
        name: networks
        seed: 11
        clock: {start: 2026-06-15T08:00:00Z, warp: 3000}
        groups:
          - name: phones
            count: \(devices)
            platform: {ios: 0.5, android: 0.5}
            route: walk.csv
            pace: walk
            startOffset: random
        \(network.map { "    network: \($0)" } ?? "")
            config:
              preset: precision
              whenStationary: keepTracking
              sync: {syncThreshold: 5, intervalSeconds: 60}
          - name: wired
            count: 5
            route: walk.csv
            pace: walk
            config:
              preset: precision
              whenStationary: keepTracking
              sync: {syncThreshold: 5, intervalSeconds: 60}
        \(faults)
        """
    }

    /// Once the run ends (answers held for the network's time heard), every fix stored is at
    /// the ingest or still pending: none lost.
    static func expectNoFixLost(_ fleet: inout SimulatedFleet, _ ingest: SimulatedIngest) {
        fleet.finish()
        let metrics = fleet.engine.snapshot()
        #expect(metrics.fixes.ledger.lost == 0)
        #expect(Set(ingest.acceptedLocationIDs).count + metrics.fixes.ledger.pending == metrics.fixesStored)
    }

    @Test(
        """
        an edge group hears its uploads after the profile's latency: p50 and p95 about edge's 400 and \
        1500 ms (with its body's time and retransmissions), while the server's time stays its own
        """
    )
    func edgeLatency() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let ingest = SimulatedIngest()
        var fleet = try workspace.simulated(Self.yaml(network: "edge", devices: 40), ingest: ingest)
        fleet.advance(byMillis: 40 * Workspace.minute)
        let metrics = fleet.engine.snapshot()
        let edge = metrics.uploadsByGroup[0]
        let wired = metrics.uploadsByGroup[1]
        let profile = NetworkProfile.named(.edge)
        try #require(edge.latency.count > 1000)
        let p50 = edge.latency.percentile(0.5)
        let p95 = edge.latency.percentile(0.95)
        // Above the round trip by the body's time (a 5-fix batch gzipped, ~0.5 KB at 100 kbit/s)
        // and the odd retransmission; within 15 % of it.
        #expect(p50 >= Double(profile.latencyMedianMillis) && p50 < 1.15 * Double(profile.latencyMedianMillis))
        #expect(abs(p95 / Double(profile.latencyP95Millis) - 1) < 0.15, "p95 \(p95)")
        // The group on no network hears the simulated server at once; the server's own time is
        // the same for both: the network's is not in it.
        #expect(wired.latency.max == 0)
        #expect(edge.serverLatency.max == wired.serverLatency.max)
        Self.expectNoFixLost(&fleet, ingest)
    }

    @Test(
        """
        dns: 0.5 fails about half the uploads as injected-dns, which never reach the ingest; every \
        other upload does, and no fix is lost
        """
    )
    func dnsHalf() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let ingest = SimulatedIngest()
        var fleet = try workspace.simulated(Self.yaml(network: "{dns: 0.5}", devices: 40), ingest: ingest)
        fleet.advance(byMillis: 40 * Workspace.minute)
        let metrics = fleet.engine.snapshot()
        let phones = metrics.uploadsByGroup[0].byOutcome
        let failed = phones[.injected(.dns)]?.count ?? 0
        let accepted = phones[.status(200)]?.count ?? 0
        try #require(failed + accepted > 400)
        #expect(Set(phones.keys) == [.injected(.dns), .status(200)])
        #expect(abs(Double(failed) / Double(failed + accepted) - 0.5) < 0.05, "\(failed) of \(failed + accepted)")
        // Only what was sent reached the ingest: the phones' accepted uploads and the wired group's.
        let phoneIDs = Set(fleet.engine.slots.filter { $0.group == 0 }.map(\.id))
        #expect(ingest.uploads.count { phoneIDs.contains($0.device) } == accepted)
        // A failure the run's network injected is a fault's, never the server's.
        #expect(TransferOutcome.injected(.dns).party == .fault)
        #expect(TransferOutcome.injected(.dns).description == "injected-dns")
        Self.expectNoFixLost(&fleet, ingest)
    }

    @Test(
        """
        uplinkKbps alone: each upload is heard exactly its gzipped body's time later (8 kbit/s: a ms \
        a byte)
        """
    )
    func bandwidthIsTheGzippedBody() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let ingest = SimulatedIngest()
        var fleet = try workspace.simulated(Self.yaml(network: "{uplinkKbps: 8}", devices: 4), ingest: ingest)
        fleet.advance(byMillis: 10 * Workspace.minute)
        let gzip = try GzipCompressor()
        var checked = 0
        for slot in fleet.engine.slots where slot.group == 0 {
            let sent = Dictionary(
                ingest.uploads(of: slot.id).map { ($0.batchID, $0.request.http.body) }, uniquingKeysWith: { a, _ in a })
            for record in slot.recent.uploads.elements {
                let body = try #require(sent[record.batchID.text])
                #expect(record.latencyMillis == Double(try gzip.compress(body).count))
                checked += 1
            }
        }
        #expect(checked > 20)
    }

    @Test(
        """
        a networkProfile fault delays uploads by its latency while it lasts, and its end puts the \
        group's own network (none) back
        """
    )
    func actionAndItsEnd() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let ingest = SimulatedIngest()
        let faults = """
            faults:
              - at: 0s
                for: 10m
                select: {group: phones}
                action: networkProfile
                params: {latency: {median: 2s, tail: 0s}}
            """
        var fleet = try workspace.simulated(Self.yaml(network: nil, devices: 4, faults: faults), ingest: ingest)
        fleet.advance(byMillis: 20 * Workspace.minute)
        let end = Workspace.start + 10 * Workspace.minute
        var before = 0
        var after = 0
        for slot in fleet.engine.slots {
            for record in slot.recent.uploads.elements {
                let sentAt = record.at - Int64(record.latencyMillis)
                if slot.group == 0, sentAt < end {
                    #expect(record.latencyMillis == 2000)
                    before += 1
                } else {
                    #expect(record.latencyMillis == 0)
                    after += 1
                }
            }
        }
        #expect(before > 10 && after > 10)
        Self.expectNoFixLost(&fleet, ingest)
    }

    @Test(
        """
        a network that adds nothing draws from its own stream: the fleet sends exactly the requests \
        it sends with no network at all
        """
    )
    func ownStream() throws {
        func digest(_ faults: String) throws -> RequestDigest {
            let workspace = try Workspace()
            defer { workspace.cleanUp() }
            let ingest = SimulatedIngest()
            var fleet = try workspace.simulated(Self.yaml(network: nil, devices: 6, faults: faults), ingest: ingest)
            fleet.advance(byMillis: 15 * Workspace.minute)
            return fleet.engine.metrics.sent
        }
        let none = try digest("")
        // A link of 1 Gbit/s with no latency, loss or failure: every draw made, none adding a ms.
        let drawn = try digest(
            """
            faults:
              - {at: 0s, select: all, action: networkProfile, params: {uplinkKbps: 1000000}}
            """)
        #expect(none.count > 50)
        #expect(drawn == none)
    }

    @Test(
        """
        a failure the network would report after the SDK's timeout: the device hears \
        injected-timeout exactly 30 s after the send, and nothing reaches the ingest
        """
    )
    func lateFailureTimesOut() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let ingest = SimulatedIngest()
        // Every lookup fails after one 40 s round trip: past the upload's 30 s.
        let network = "{dns: 1, latency: {median: 40s, tail: 0s}}"
        var fleet = try workspace.simulated(Self.yaml(network: network, devices: 3), ingest: ingest)
        fleet.advance(byMillis: 10 * Workspace.minute)
        let phones = fleet.engine.slots.filter { $0.group == 0 }
        let records = phones.flatMap(\.recent.uploads.elements)
        #expect(!records.isEmpty)
        #expect(records.allSatisfy { $0.outcome == .injectedTimeout && $0.latencyMillis == 30_000 }, "\(records)")
        let ids = Set(phones.map(\.id))
        #expect(!ingest.uploads.contains { ids.contains($0.device) })
        #expect(fleet.engine.metrics.cancelledOnWire == 0)
    }
}
