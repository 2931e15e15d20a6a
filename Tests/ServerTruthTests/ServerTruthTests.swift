import BeekonDevice
import BeekonStore
import FleetDescription
import Foundation
import Testing

@testable import ServerTruth

/// `verify`'s join: what each device was told, set beside the rows the server holds, in every
/// category, with the server's own problems (duplicates, foreign, misattributed) and thresholds.
@Suite("Server truth: the server's store against what every device was told")
struct ServerTruthTests {
    static func id(_ n: UInt64) -> UUIDv7 { UUIDv7(high: 0x0190_0000_0000_7000 | n, low: 0x8000_0000_0000_0000 | n) }

    @Test(
        "a fix's category is what its device made of it last and whether the server holds it",
        arguments: [
            (DeviceSide.acknowledged, true, FixVerdict.acknowledgedStored), (.acknowledged, false, .lost),
            (.rejected, false, .rejectedNotStored), (.rejected, true, .storedThoughRejected),
            (.pending, false, .pendingNotStored), (.pending, true, .storedUnheard),
            (.sentThenGone, true, .storedUnheard), (.sentThenGone, false, .goneNotStored),
        ])
    func verdicts(_ side: DeviceSide, _ stored: Bool, _ verdict: FixVerdict) {
        #expect(FixVerdict(side, stored: stored) == verdict)
    }

    /// Two devices in two groups. Device 0 (install 100): fixes 1–4 acknowledged, 5 rejected,
    /// 6 pending, 7 sent unacknowledged then acknowledged, 8 sent unacknowledged then gone.
    /// Device 1 (install 101): 11–12 acknowledged, 13 pending.
    static func join() -> TruthJoin {
        var join = TruthJoin(groups: ["walkers", "drivers"], examples: 2)
        let told = { (heard: ToldBatch.Heard, batch: UInt64, fixes: [UInt64]) in
            ToldBatch(batchID: id(batch), heard: heard, at: 1_700_000_000_000 + Int64(batch), fixIDs: fixes.map(id))
        }
        join.add(
            VerifiedDevice(deviceID: "walkers-0001", installID: id(100), group: 0, storePath: "/nowhere/0"),
            StoreRecords(
                pending: [id(6)],
                told: [
                    told(.unacknowledged, 200, [7, 8]), told(.acknowledged, 201, [1, 2, 3, 4]),
                    told(.rejected, 202, [5]), told(.unheardAcknowledgement, 203, [7]), told(.acknowledged, 204, [7]),
                ]))
        join.add(
            VerifiedDevice(deviceID: "drivers-0001", installID: id(101), group: 1, storePath: "/nowhere/1"),
            StoreRecords(pending: [id(13)], told: [told(.acknowledged, 210, [11, 12])]))
        join.seal()
        return join
    }

    @Test("every category counted, per group and in all; duplicates, foreign and misattributed rows found")
    func counts() throws {
        var join = Self.join()
        // Server: 1 twice, 2, 3 (not 4: lost), 5 (rejected, stored), 6 (pending, stored), 7, 8,
        // 11 under install 100 (misattributed), 12 (not: lost), a foreign id twice.
        let rows: [(UInt64, UInt64)] = [
            (100, 1), (100, 1), (100, 2), (100, 3), (100, 5), (100, 6), (100, 7), (100, 8), (100, 11), (999, 500),
            (999, 500),
        ]
        for (line, row) in rows.enumerated() {
            join.add(StoredRow(install: .id(Self.id(row.0)), fixID: Self.id(row.1), line: line + 1))
        }
        let result = join.result { _ in nil }
        let total = result.total
        let expected: [FixVerdict: Int] = [
            .acknowledgedStored: 5, .lost: 2, .rejectedNotStored: 0, .storedThoughRejected: 1, .pendingNotStored: 1,
            .storedUnheard: 2, .goneNotStored: 0, .uninstalledNotStored: 0, .portalDropped: 0,
        ]
        #expect(total.fixes == expected)
        #expect(total.duplicates == 2 && total.duplicateRows == 2, "fix 1 and the foreign id")
        #expect(total.foreign == 2 && total.misattributed == 1 && result.serverRows == 11)
        let walkers = try #require(result.groups.first { $0.name == "walkers" }?.counts)
        let drivers = try #require(result.groups.first { $0.name == "drivers" }?.counts)
        #expect(walkers.fixes[.lost] == 1 && drivers.fixes[.lost] == 1 && drivers.misattributed == 1)
        #expect(walkers.duplicates == 1 && drivers.duplicates == 0, "a foreign duplicate is no group's")
        #expect(result.examples[.lost]?.map(\.fixID) == [Self.id(4).text, Self.id(12).text])
        #expect(result.examples[.foreign]?.first?.stored == 2 && result.examples[.foreign]?.first?.line == 10)
        #expect(result.examples[.misattributed]?.first?.installID == Self.id(101).text, "the device's own install")
    }

    @Test("an example names the batch that told its fix and when, read again from its device's store")
    func exampleBatch() {
        var join = Self.join()
        // Lost: 4 (walkers), then 11 and 12 (drivers); the first two are shown.
        for fix: UInt64 in [1, 2, 3, 7] {
            join.add(StoredRow(install: .id(Self.id(100)), fixID: Self.id(fix), line: Int(fix)))
        }
        let result = join.result { device in
            device.deviceID == "walkers-0001"
                ? StoreRecords(
                    pending: [],
                    told: [
                        ToldBatch(batchID: Self.id(201), heard: .acknowledged, at: 0, fixIDs: [2, 3, 4].map(Self.id))
                    ])
                : nil
        }
        let lost = result.examples[.lost] ?? []
        #expect(lost.map(\.fixID) == [Self.id(4).text, Self.id(11).text])
        #expect(lost.first?.batchID == Self.id(201).text && lost.first?.toldAt == "1970-01-01T00:00:00.000Z")
        #expect(lost.count == 2 && lost[1].batchID == nil, "no store to read: no batch")
    }

    @Test(
        "thresholds measure counts and shares of what each can happen to, a group's its own",
        arguments: [
            ("server.lost == 0", 2.0, false), ("server.lost.rate < 0.3", 2.0 / 7, true),
            ("server.duplicates == 0", 0, true), ("server.stored_though_rejected.rate == 1", 1, true),
            ("server.foreign == 0", 0, true), ("server.lost{group: drivers} == 1", 1, true),
            ("server.misattributed.rate < 0.5", 0, true),
        ])
    func thresholds(_ expression: String, _ value: Double, _ passed: Bool) throws {
        var join = Self.join()
        for fix: UInt64 in [1, 2, 3, 5, 6, 7, 11] {
            join.add(StoredRow(install: .id(Self.id(fix > 10 ? 101 : 100)), fixID: Self.id(fix), line: Int(fix)))
        }
        let result = join.result { _ in nil }.check([try Threshold.read(expression)])
        #expect(result.first?.value == value && result.first?.passed == passed)
    }

    @Test("a server metric is only a verify threshold; the run has no figure for it")
    func serverMetrics() throws {
        let lost = try Threshold.read("server.lost.rate < 0.1%")
        #expect(lost.metric == .server(.lost, .rate) && lost.limit == 0.001 && lost.metric.isServerTruth)
        #expect(
            try Threshold.read("server.stored_though_rejected == 0").metric == .server(.storedThoughRejected, .count))
        #expect(throws: ThresholdProblem.self) { try Threshold.read("server.stored == 0") }
        #expect(!(try Threshold.read("fixes.lost == 0")).metric.isServerTruth)
    }

    @Test("the fix ids given where install ids should be are noticed: the columns are swapped")
    func swapped() {
        var join = Self.join()
        for line in 1...3 { join.add(StoredRow(install: .id(Self.id(1)), fixID: Self.id(100), line: line)) }
        #expect(join.columnsLookSwapped)
    }

    @Test("the index finds every fix id it holds and no other, however the ids spread (its buckets)")
    func indexFindsEveryID() {
        var rng = SplitMix64(seed: 7)
        var ids: [UUIDv7] = [
            UUIDv7(high: 0, low: 0), UUIDv7(high: 0, low: 5), UUIDv7(high: .max, low: .max), UUIDv7(high: 1, low: 1),
        ]
        // A dense cluster (many ids to a bucket), a sparse spread, and the same high many times.
        ids += (0..<500).map { UUIDv7(high: 0x0190_0000_0000_7000 + UInt64($0 % 7), low: rng.next()) }
        ids += (0..<500).map { _ in UUIDv7(high: rng.next(), low: rng.next()) }
        var index = ToldIndex()
        index.add(StoreRecords(pending: ids, told: []), device: 0)
        // Told as well as pending: one entry each.
        index.add(
            StoreRecords(pending: [], told: [ToldBatch(batchID: ids[0], heard: .acknowledged, at: 0, fixIDs: ids)]),
            device: 0)
        index.seal()
        #expect(index.entries.count == Set(ids).count)
        let held = Set(ids)
        for id in ids {
            let found = index.find(id).map { UUIDv7(high: index.entries[$0].high, low: index.entries[$0].low) }
            #expect(found == id)
            for other in [UUIDv7(high: id.high, low: id.low &+ 1), UUIDv7(high: id.high &- 1, low: id.low)]
            where !held.contains(other) {
                #expect(index.find(other) == nil)
            }
        }
        #expect(ToldIndex().find(ids[0]) == nil)
    }
}
