import BeekonDevice
import BeekonStore
import FleetTestSupport
import Testing

@testable import FleetEngine
@testable import FleetRuntime

/// What each device was told of every batch it sent is in its own store (`told`), so `verify`
/// can hold the server's store to it: every fix id a device sent is in a told batch or still
/// pending, and each told batch says how the upload ended for the device.
@Suite("Told records: what each device heard of every batch, in its store")
struct ToldRecordTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var faults = ""
        var answer: SimulatedAnswer
        /// The told batches by how they ended, for every batch answered by the end.
        var heard: Set<ToldBatch.Heard>
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "200: acknowledged", answer: .respond(status: 200, afterMillis: 80), heard: [.acknowledged]),
        Case(name: "422: rejected", answer: .respond(status: 422, afterMillis: 80), heard: [.rejected]),
        Case(name: "503: unacknowledged", answer: .respond(status: 503, afterMillis: 80), heard: [.unacknowledged]),
        Case(name: "reset: unacknowledged", answer: .fail(.reset, afterMillis: 80), heard: [.unacknowledged]),
        Case(name: "hang: unacknowledged at the SDK's timeout", answer: .hang, heard: [.unacknowledged]),
        Case(
            name: "a timeouts fault then a late 200: unacknowledged, an unheard 2xx, then acknowledged",
            faults: """
                faults:
                  - {at: 0s, for: 1m, select: all, action: timeouts, params: {fraction: 1}}
                """,
            answer: .respond(status: 200, afterMillis: 100),
            heard: [.unacknowledged, .unheardAcknowledgement, .acknowledged]),
    ]

    @Test("every fix id sent is told or pending; each batch's record says how it ended", arguments: cases)
    func told(_ scenario: Case) throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        var fleet = try SimulatedFleetTests.fleet(workspace, faults: scenario.faults) { _ in scenario.answer }
        fleet.advance(byMillis: 6 * 60_000)
        let metrics = fleet.engine.snapshot()
        var told: [ToldBatch] = []
        for slot in fleet.engine.slots {
            told += try #require(slot.storage.store as? DeviceStore).toldBatches()
        }
        #expect(Set(told.map(\.heard)) == scenario.heard)
        func fixes(_ heard: ToldBatch.Heard) -> [UUIDv7] { told.filter { $0.heard == heard }.flatMap(\.fixIDs) }
        let ledger = metrics.fixes.ledger
        #expect(fixes(.acknowledged).count == ledger.acknowledged)
        #expect(Set(fixes(.acknowledged)).count == ledger.acknowledged, "a fix acknowledged twice")
        #expect(fixes(.rejected).count == ledger.rejected)
        #expect(fixes(.unheardAcknowledgement).count == metrics.fixes.unheardAcknowledgements.fixes)
        // Sent long enough ago to be answered (or timed out) by now.
        let answered = try FixAccountingTests.sentFixIDs(fleet, by: metrics.virtualNow - 31_000)
        let known = Set(told.flatMap(\.fixIDs).map(\.text)).union(try fleet.storedFixes().map(\.id))
        #expect(
            answered.count >= 9 && answered.allSatisfy(known.contains),
            "\(answered.count) sent; one neither told nor pending")
        // A batch not acknowledged or rejected is told as often as it went and ended: once a send.
        let sentBatches = fleet.sent.filter { $0.sentAt <= metrics.virtualNow - 31_000 }
            .map(SimulatedFleetTests.batchID).filter { !$0.isEmpty }
        let recorded = told.filter { $0.heard != .unheardAcknowledgement }.map(\.batchID.text)
        #expect(Set(sentBatches).isSubset(of: Set(recorded)))
    }
}
