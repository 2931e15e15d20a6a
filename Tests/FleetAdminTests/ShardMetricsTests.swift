import Testing

@testable import FleetAdmin
@testable import FleetEngine

/// `/metrics` of a shard (`run --shard`): every sample says which shard it is, so Prometheus
/// scraping every shard adds them up or tells them apart; a whole run's samples carry no shard.
@Suite("Shard metrics")
struct ShardMetricsTests {
    static var snapshot: FleetSnapshot {
        var snapshot = FleetSnapshot()
        snapshot.groups = ["walkers", "drivers"]
        snapshot.metrics.fixesByGroup = [FixAccount(), FixAccount()]
        snapshot.metrics.fixesByGroup[0].ledger.admitted = 7
        var uploads = GroupUploads()
        uploads.record(.status(200), latencyMillis: 80, serverMillis: 2)
        snapshot.metrics.uploadsByGroup = [uploads, GroupUploads()]
        snapshot.metrics.devicesByState = [.dead: 1]
        return snapshot
    }

    @Test(
        "shard 2 of 4 labels every sample shard=\"2\", beside its own labels, and says it is shard 2 of 4",
        arguments: [
            "beekon_fleet_fixes_admitted_total{shard=\"2\",group=\"walkers\"} 7",
            "beekon_fleet_devices{shard=\"2\",state=\"dead\"} 1",
            "beekon_fleet_upload_latency_seconds_bucket{shard=\"2\",group=\"walkers\",le=\"0.1\"} 1",
            "beekon_fleet_upload_latency_seconds_count{shard=\"2\",group=\"walkers\"} 1",
            "beekon_fleet_upload_latency_seconds_count{shard=\"2\",group=\"drivers\"} 0",
            "beekon_fleet_answers_after_timeout_total{shard=\"2\"} 0",
            "beekon_fleet_shard_info{shard=\"2\",shards=\"4\"} 1",
        ])
    func labelled(sample: String) throws {
        let text = PrometheusText.render(Self.snapshot, shard: try Shard(index: 2, count: 4))
        #expect(text.split(separator: "\n").contains { $0 == sample }, "\(sample)")
        let samples = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(samples.allSatisfy { $0.contains("{shard=\"2\"") }, "\(samples.filter { !$0.contains("shard") })")
        #expect(text.hasSuffix(" 1\n") || text.hasSuffix("\n"))
    }

    @Test("a whole run's samples carry no shard label; the rest of the text is the same")
    func whole() throws {
        let whole = PrometheusText.render(Self.snapshot)
        #expect(!whole.contains("shard"))
        let sharded = PrometheusText.render(Self.snapshot, shard: try Shard(index: 0, count: 3))
        let unlabelled = sharded.replacingOccurrences(of: "{shard=\"0\",", with: "{")
            .replacingOccurrences(of: "{shard=\"0\"}", with: "")
        let withoutInfo = unlabelled.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.contains("beekon_fleet_shard_info") }.joined(separator: "\n")
        // The process's own figures move between the two renders.
        let stable = { (text: String) in text.split(separator: "\n").filter { !$0.hasPrefix("process_") } }
        #expect(stable(withoutInfo) == stable(whole))
    }
}
