import Foundation
import Testing

@testable import FleetCommandLine

/// `run --shard auto/N`: replicas sharing a data folder each hold a different index, and agree
/// on when to start.
@Suite("Shard claims")
struct ShardClaimTests {
    static func folder() throws -> String {
        let path = NSTemporaryDirectory() + "beekon-claims-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test(
        """
        each claim takes the first index no one holds; with all held another is refused, naming the count; \
        an index released is taken by the next claim
        """)
    func claims() throws {
        let data = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: data) }
        var held = try (0..<3).map { _ in try ShardClaim.claim(count: 3, dataDirectory: data) }
        #expect(held.map(\.shard.index) == [0, 1, 2])
        #expect(held.allSatisfy { $0.shard.count == 3 })
        #expect {
            _ = try ShardClaim.claim(count: 3, dataDirectory: data, patienceSeconds: 0.3)
        } throws: { error in
            "\(error)".contains("all 3 shards of \(data) are held by running processes")
        }
        held.remove(at: 1)
        let replacement = try ShardClaim.claim(count: 3, dataDirectory: data, patienceSeconds: 0.3)
        #expect(replacement.shard.index == 1)
    }

    @Test("once all are held, every holder computes one start: the latest claim plus the margin, to the second")
    func commonStart() throws {
        let data = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let first = try ShardClaim.claim(count: 2, dataDirectory: data)
        #expect {
            _ = try first.commonStart(marginMillis: 10_000, patienceSeconds: 0.3)
        } throws: { error in
            "\(error)".contains("only 1 of 2 shards were claimed")
        }
        let before = Int64(Date().timeIntervalSince1970 * 1000)
        let second = try ShardClaim.claim(count: 2, dataDirectory: data)
        let starts = try [first, second].map { try $0.commonStart(marginMillis: 10_000, patienceSeconds: 1) }
        #expect(starts[0] == starts[1])
        #expect(starts[0] % 1000 == 0)
        #expect(starts[0] >= before + 10_000 && starts[0] <= Int64(Date().timeIntervalSince1970 * 1000) + 11_000)
    }
}
