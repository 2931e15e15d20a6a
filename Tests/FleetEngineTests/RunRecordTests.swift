import FleetDescription
import Foundation
import Testing

@testable import FleetEngine

@Suite("Merging shards' run records")
struct RunRecordTests {
    /// Shard `index`/`count` of a run of "demo", seed 7, with `admitted` fixes and one upload.
    static func record(
        _ index: Int, of count: Int, name: String = "demo", seed: UInt64 = 7, startedAt: Int64 = 1_000,
        groups: [String] = ["walkers", "drivers"], thresholds: [String] = ["fixes.lost == 0"], admitted: Int = 10,
        end: RunEnd? = .virtualTimeLimit(millis: 60_000), abortedBy: String? = nil
    ) throws -> (name: String, record: RunRecord) {
        var snapshot = FleetSnapshot()
        snapshot.name = name
        snapshot.seed = seed
        snapshot.startedAt = startedAt
        snapshot.virtualNow = startedAt + 60_000 - Int64(index)
        snapshot.groups = groups
        snapshot.thresholds = ThresholdSet(given: try thresholds.map { try Threshold.read($0) }, strict: false)
        snapshot.metrics.fixes.ledger.admitted = admitted
        snapshot.metrics.fixes.ledger.pending = admitted
        snapshot.metrics.devices = 2
        snapshot.metrics.latency.record(Double(100 * (index + 1)))
        let record = RunRecord(snapshot, shard: try Shard(index: index, count: count), end: end, abortedBy: abortedBy)
        return ("shard-\(index).json", record)
    }

    @Test("every shard of one run merges into the whole: counts add up, histograms merge, the earliest clock")
    func merges() throws {
        let whole = try RunRecord.merged([
            try Self.record(2, of: 3), try Self.record(0, of: 3), try Self.record(1, of: 3),
        ])
        #expect(whole.shard == .whole)
        #expect(whole.metrics.fixes.ledger.admitted == 30)
        #expect(whole.metrics.devices == 6)
        #expect(whole.metrics.latency.count == 3)
        #expect(whole.metrics.latency.max == 300)
        #expect(whole.virtualNow == 1_000 + 60_000 - 2)
        #expect(whole.end == .virtualTimeLimit(millis: 60_000))
        #expect(whole.abortedBy == nil)
    }

    @Test("a shard that an abortOnFail threshold stopped makes the whole aborted; ends that differ are a stop")
    func abortAndEnds() throws {
        let whole = try RunRecord.merged([
            try Self.record(0, of: 2, end: .stopped, abortedBy: "fixes.lost == 0"), try Self.record(1, of: 2),
        ])
        #expect(whole.abortedBy == "fixes.lost == 0")
        #expect(whole.end == .stopped)
    }

    @Test(
        "records that are not every shard of one run, each once, are refused with what differs",
        arguments: [
            (
                [(0, 2, "demo", 7 as UInt64, 1_000 as Int64, "fixes.lost == 0")],
                "shard 1/2 of the run shard-0.json is part of is missing"
            ),
            (
                [(0, 2, "demo", 7, 1_000, "fixes.lost == 0"), (0, 2, "demo", 7, 1_000, "fixes.lost == 0")],
                "shard-0.json and shard-0.json are both shard 0/2"
            ),
            (
                [(0, 2, "demo", 7, 1_000, "fixes.lost == 0"), (1, 3, "demo", 7, 1_000, "fixes.lost == 0")],
                "shard count 3 where shard-0.json has 2"
            ),
            (
                [(0, 2, "demo", 7, 1_000, "fixes.lost == 0"), (1, 2, "other", 7, 1_000, "fixes.lost == 0")],
                #"fleet name "other" where shard-0.json has "demo""#
            ),
            (
                [(0, 2, "demo", 7, 1_000, "fixes.lost == 0"), (1, 2, "demo", 8, 1_000, "fixes.lost == 0")],
                "seed 8 where shard-0.json has 7"
            ),
            (
                [(0, 2, "demo", 7, 1_000, "fixes.lost == 0"), (1, 2, "demo", 7, 2_000, "fixes.lost == 0")],
                "virtual start 1970-01-01T00:00:02.000Z where"
            ),
            (
                [(0, 2, "demo", 7, 1_000, "fixes.lost == 0"), (1, 2, "demo", 7, 1_000, "fixes.lost < 5")],
                #"thresholds ["fixes.lost < 5"] where shard-0.json has ["fixes.lost == 0"]"#
            ),
            (
                [(0, 4, "demo", 7, 1_000, "fixes.lost == 0")],
                "shards 1/4, 2/4, 3/4 of the run shard-0.json is part of are missing"
            ),
        ] as [([(Int, Int, String, UInt64, Int64, String)], String)])
    func refused(parts: [(Int, Int, String, UInt64, Int64, String)], problem: String) throws {
        let records = try parts.map { index, count, name, seed, start, threshold in
            try Self.record(index, of: count, name: name, seed: seed, startedAt: start, thresholds: [threshold])
        }
        #expect {
            _ = try RunRecord.merged(records)
        } throws: { error in
            "\(error)".contains(problem)
        }
    }

    @Test("no record to merge is refused")
    func empty() {
        #expect(throws: RunRecordProblem.self) { _ = try RunRecord.merged([]) }
    }

    @Test("a record read back from its JSON merges as the record itself")
    func roundTrip() throws {
        let parts = [try Self.record(0, of: 2), try Self.record(1, of: 2, admitted: 4)]
        let read = try parts.map { part in
            (part.name, try JSONDecoder().decode(RunRecord.self, from: JSONEncoder().encode(part.record)))
        }
        let whole = try RunRecord.merged(parts)
        let fromRead = try RunRecord.merged(read)
        #expect(fromRead.metrics.fixes == whole.metrics.fixes)
        #expect(fromRead.metrics.latency == whole.metrics.latency)
        #expect(fromRead.thresholds == whole.thresholds)
        #expect(fromRead.virtualNow == whole.virtualNow)
    }
}
