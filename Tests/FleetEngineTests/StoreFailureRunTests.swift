import BeekonDevice
import BeekonStore
import FleetTestSupport
import Foundation
import Testing

@testable import FleetEngine
@testable import FleetRuntime

/// Device stores that fill up mid-run (SQLite's page limit, see
/// `DeviceStore.limitPagesForTesting`) and get room again, on the simulated driver: uploads are
/// answered 20 virtual s after they are sent, so a batch is on the wire when the stores fill.
@Suite("Fleet engine: store failures")
struct StoreFailureRunTests {
    static let start = Workspace.start
    static let minute = Workspace.minute

    /// Sets or lifts (`nil`) the page limit of every device store, at the current instant.
    static func limitPages(_ pages: Int?, _ fleet: SimulatedFleet) throws {
        for slot in fleet.engine.slots {
            try #require(slot.storage.store as? DeviceStore).limitPagesForTesting(pages)
        }
    }

    @Test(
        """
        a full store shows storeError with SQLite's message from the acknowledgement \
        it cannot delete, loses fixes by cause, holds the acknowledged rows and never \
        sends them again, and resumes with the first fix it stores once it has room
        """
    )
    func fullStoreRecovers() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let ingest = SimulatedIngest { _ in .respond(status: 200, afterMillis: 20_000) }
        let devices = 4
        var fleet = try workspace.simulated(Workspace.yaml(devices: devices), ingest: ingest)

        // Each device's third upload leaves at 180 s; its answer is due at 200 s.
        let fullAt = Self.start + 3 * Self.minute + 10_000
        fleet.advance(to: fullAt)
        #expect(
            fleet.engine.transfers.waited.values.map(\.sentAt)
                == Array(repeating: Self.start + 3 * Self.minute, count: devices))
        try Self.limitPages(1, fleet)
        fleet.advance(byMillis: 10 * Self.minute)

        let full = fleet.engine.snapshot()
        for slot in fleet.engine.slots {
            #expect(slot.listedState.description == "storeError", "\(slot.id)")
            #expect(slot.storage.problem?.cause == .full)
            #expect(slot.storage.problem?.message == "database or disk is full")
            // The answer to the batch on the wire is the first write that fails: its rows cannot be deleted.
            #expect(
                slot.recent.stateHistory.elements.first { $0.at >= fullAt }
                    == StateChange(at: Self.start + 200_000, state: .storeError))
            // Every batch acknowledged while full is held back, row for row.
            let acknowledged = slot.recent.uploads.elements.filter { $0.at >= fullAt && $0.outcome == .status(200) }
                .reduce(0) {
                    $0 + $1.fixes
                }
            #expect(acknowledged > 0)
            #expect((slot.storage.store as? DeviceStore)?.heldDeleteCount == acknowledged, "\(slot.id)")
        }
        #expect(full.devicesByState == [.storeError: devices])
        #expect(full.fixesLostByCause["full", default: 0] > 0)
        #expect(full.storeErrorsByCause.keys.sorted() == ["full"])
        #expect(full.storeErrors >= full.fixesLostByCause["full", default: 0])
        // A lost fix is not pending: the backlog is what was stored and not yet acknowledged.
        #expect(full.fixes.ledger.pending == full.fixesStored - full.fixes.ledger.acknowledged)

        let liftedAt = fleet.now
        try Self.limitPages(nil, fleet)
        fleet.advance(byMillis: 10 * Self.minute)
        let stored = try fleet.storedFixes()
        for slot in fleet.engine.slots {
            let fixes =
                stored.filter { $0.device == slot.id }.map(\.timestamp)
                + ingest.uploads(of: slot.id).flatMap(\.timestamps)
            let firstFix = try #require(
                fixes.filter { $0 >= liftedAt }.min(), "\(slot.id) stored nothing once it had room")
            #expect(
                slot.recent.stateHistory.elements.filter { $0.at >= liftedAt }.first?.at == firstFix,
                "\(slot.id) left storeError at another instant")
            #expect(slot.storage.problem == nil && slot.listedState.description == "tracking")
            #expect(
                ingest.uploads(of: slot.id).contains { $0.request.sentAt >= liftedAt && $0.accepted },
                "\(slot.id) uploaded nothing once it had room")
        }
        #expect(fleet.engine.metrics.fixesStored > full.fixesStored)
        let sent = ingest.uploads.flatMap(\.locationIDs)
        #expect(sent.count == Set(sent).count, "a fix was sent twice")

        // One line per cause per real minute (a real minute is 3,000 virtual ones at this warp):
        // the first failure's, then at the end the count of what was held back.
        fleet.finish()
        let errors = fleet.engine.metrics.storeErrors
        #expect(fleet.logged.count == 2, "\(fleet.logged)")
        #expect(fleet.logged.first?.message.contains("database or disk is full") == true)
        #expect(
            fleet.logged.last
                == FleetLogLine(
                    .error, "and \(StoreErrorLog.grouped(errors - 1)) more store errors (full) in the last minute"))
    }

    @Test(
        """
        a device in storeError that stores nothing tries its store 10 s after the failure, then after \
        20, 40, 80, 160 s and every 5 min, and recovers at the first try after the room comes back
        """,
        arguments: [(5, 10), (25, 30), (100, 150), (400, 610), (700, 910)] as [(Int64, Int64)])
    func retriesOnTheVirtualClock(liftAfterSeconds: Int64, recoveredAfterSeconds: Int64) throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let ingest = SimulatedIngest { _ in .respond(status: 200, afterMillis: 20_000) }
        var fleet = try workspace.simulated(Workspace.yaml(devices: 1), ingest: ingest)
        // The first upload leaves at 60 s; then the device stops admitting fixes and its store fills.
        fleet.advance(to: Self.start + Self.minute)
        #expect(ingest.uploads.map(\.request.sentAt) == [Self.start + Self.minute])
        _ = try fleet.command { (engine) throws(FleetControlError) in
            try engine.act(.revokePermission, on: .all)
        }
        try Self.limitPages(1, fleet)
        // The answer, at 80 s, cannot delete the batch's rows.
        let failedAt = Self.start + 80_000
        fleet.advance(to: failedAt + liftAfterSeconds * 1_000)
        try Self.limitPages(nil, fleet)
        fleet.advance(byMillis: 20 * Self.minute)
        let history = fleet.engine.slots[0].recent.stateHistory.elements.filter { $0.at >= failedAt }
        #expect(
            history == [
                StateChange(at: failedAt, state: .storeError),
                StateChange(at: failedAt + recoveredAfterSeconds * 1_000, state: .sdk(.paused(.permissionRevoked))),
            ])
    }
}

extension StoreFailureRunTests {
    @Test(
        """
        running ahead, rows waiting for a shared commit that fails are written one by one: each \
        that fails is lost, counted by cause and taken off its device's pending count, and every \
        admitted fix is accounted for
        """,
        arguments: [1, 2] as [UInt64])
    func sharedCommitFails(order: UInt64) throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        var fleet = try LookaheadTests.fleet(workspace)
        var rng = SplitMix64(seed: order)
        let fill: (inout FleetLoop) -> Void = { engine in
            for slot in engine.slots { try? (slot.storage.store as? DeviceStore)?.limitPagesForTesting(1) }
        }
        let commitsBefore = { (engine: FleetLoop) in
            engine.slots.reduce(0) { $0 + (($1.storage.store as? DeviceStore)?.rowCommits ?? 0) }
        }
        _ = fleet.advanceAhead(to: LookaheadTests.start + 20 * 60_000, rng: &rng, commands: [(5, fill)])
        let full = fleet.engine.snapshot()
        let lost = full.fixesLostByCause["full", default: 0]
        #expect(lost > 0)
        #expect(full.fixes.ledger.lost == lost)
        #expect(full.fixes.handedToStores == full.fixes.ledger.admitted)
        #expect(commitsBefore(fleet.engine) < full.fixes.ledger.admitted)
        for slot in fleet.engine.slots {
            let store = try #require(slot.storage.store as? DeviceStore)
            #expect(slot.device?.pendingUploadCount == (try store.pendingCount()), "\(slot.id)")
        }
    }
}

@Suite("Store error log and retry")
struct StoreErrorLogTests {
    static func error(_ kind: StoreError.Kind) -> StoreError {
        StoreError(
            kind: kind, code: 13, path: "/data/beekon.db", operation: "insert fix", message: "database or disk is full")
    }

    @Test("one line per cause per real minute, the next one counting what was held back")
    func rateLimited() {
        var lines: [String] = []
        var log = StoreErrorLog()
        let second: UInt64 = 1_000_000_000
        for index in 0..<4_212 {
            lines += [
                log.report(Self.error(.full), device: "d-\(index)", realNanos: 5 * second + UInt64(index) * 1_000)
            ].compactMap { $0 }
        }
        for (device, second) in [("d-io", 6 * second), ("d-late", 65 * second), ("d-later", 66 * second)] {
            lines += [log.report(Self.error(device == "d-io" ? .ioError : .full), device: device, realNanos: second)]
                .compactMap { $0 }
        }
        lines += log.flush()
        #expect(
            lines == [
                "device d-0: \(Self.error(.full))",
                "device d-io: \(Self.error(.ioError))",
                "device d-late: \(Self.error(.full)); and 4,211 more store errors (full) in the last minute",
                "and 1 more store errors (full) in the last minute",
            ])
    }

    @Test(
        "numbers are grouped by thousands",
        arguments: [(0, "0"), (999, "999"), (1_000, "1,000"), (4_211, "4,211"), (1_234_567, "1,234,567")])
    func grouped(value: Int, text: String) {
        #expect(StoreErrorLog.grouped(value) == text)
    }

    @Test(
        "a store is retried after 10 s, doubling to at most 5 min",
        arguments: [(0, 10_000), (1, 20_000), (2, 40_000), (4, 160_000), (5, 300_000), (40, 300_000)] as [(Int, Int64)])
    func retryDelay(failed: Int, millis: Int64) {
        var problem = StoreProblem(cause: .full, message: "", since: 0)
        problem.failedRetries = failed
        #expect(problem.retryDelayMillis == millis)
    }
}
