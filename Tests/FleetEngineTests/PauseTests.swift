import BeekonDevice
import FleetTestSupport
import Testing

@testable import FleetDescription
@testable import FleetEngine
@testable import FleetRuntime

/// A pause at a warp stops the devices' clock while the server's runs on: what the server
/// answered is heard at the paused instant, and nothing new reaches it until the fleet goes on,
/// so a paused fleet's accounting agrees with the server's store.
@Suite("Pause: the devices' clock stands, the server's runs on")
struct PauseTests {
    /// 3 walkers uploading one fix per batch (each drain is a chain of batches), answered 200
    /// after 2 virtual s as answered, at 100 ms modelled.
    static func fleet(_ workspace: Workspace, timing: TransferTiming) throws -> SimulatedFleet {
        try SimulatedFleet(
            fleet: try workspace.fleet(
                Workspace.yaml(devices: 3, sync: "{syncThreshold: 3, intervalSeconds: 60, batchSize: 1}")),
            options: RunOptions(
                dataDirectory: workspace.data, ingest: "http://ingest.invalid/ingest",
                routeFolder: workspace.folder.path, transferTiming: timing)
        ) { _ in .respond(status: 200, afterMillis: 2_000) }
    }

    static func uploadsSent(_ fleet: SimulatedFleet) -> Int {
        fleet.sent.filter { if case .upload = $0.kind { true } else { false } }.count
    }

    @Test(
        """
        paused with an upload out, its device hears the answer at the paused instant; the drain's \
        next batch waits for the resume and leaves then, stamped with the paused instant
        """,
        arguments: [TransferTiming.deterministic, .asAnswered])
    func pauseHearsWhatIsOut(timing: TransferTiming) throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        var fleet = try Self.fleet(workspace, timing: timing)
        while fleet.sent.isEmpty { fleet.advance(byMillis: 1) }
        let first = fleet.sent[0]
        let pausedAt = fleet.now

        fleet.setPaused(true)
        let heard = try #require(
            fleet.engine.slots.flatMap(\.recent.uploads.elements).first {
                $0.batchID.text == SimulatedFleetTests.batchID(first)
            })
        #expect(heard.at == pausedAt && heard.outcome == .status(200))
        // Nothing is out: every upload put on the wire was heard, and the server got no other.
        let sentAtPause = Self.uploadsSent(fleet)
        #expect(fleet.engine.metrics.batchesSent == sentAtPause)
        #expect(fleet.engine.metrics.batchesByOutcome.values.reduce(0, +) == sentAtPause)
        #expect(fleet.engine.metrics.batchesByOutcome[.status(200)] == sentAtPause)
        // The device went on draining: its next batch waits for the resume.
        let waiting = fleet.engine.transfers.numbers.compactMap { fleet.engine.transfers[$0] }.filter(\.waitsForResume)
        #expect(waiting.count == 1)

        fleet.advance(byMillis: 60_000)
        #expect(fleet.now == pausedAt, "virtual time went on while paused")
        #expect(Self.uploadsSent(fleet) == sentAtPause, "a request reached the server while paused")

        fleet.setPaused(false)
        #expect(Self.uploadsSent(fleet) == sentAtPause + 1)
        #expect(fleet.sent.last?.sentAt == pausedAt && fleet.sent.last?.device == first.device)
        #expect(fleet.engine.metrics.batchesSent == sentAtPause + 1)
        fleet.advance(byMillis: 10 * 60_000)
        let metrics = fleet.engine.metrics
        #expect(metrics.batchesSent == Self.uploadsSent(fleet))
        #expect(
            metrics.fixes.unaccounted == 0 && metrics.fixes.ledger.lost == 0 && metrics.fixes.ledger.unaccounted == 0)
    }

    @Test("a fleet stopped while paused never sends what waited for the resume, and loses none of its fixes")
    func stopWhilePaused() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        var fleet = try Self.fleet(workspace, timing: .deterministic)
        while fleet.sent.isEmpty { fleet.advance(byMillis: 1) }
        fleet.setPaused(true)
        let sentAtPause = Self.uploadsSent(fleet)
        let waiting = fleet.engine.transfers.numbers.compactMap { fleet.engine.transfers[$0] }.filter(\.waitsForResume)
        #expect(waiting.count == 1, "no batch waits for the resume, so this test shows nothing")
        fleet.finish()
        #expect(Self.uploadsSent(fleet) == sentAtPause)
        let metrics = fleet.engine.metrics
        #expect(metrics.batchesSent == sentAtPause)
        #expect(
            metrics.fixes.unaccounted == 0 && metrics.fixes.ledger.lost == 0 && metrics.fixes.ledger.unaccounted == 0)
        #expect(metrics.fixes.ledger.admitted == metrics.fixes.ledger.acknowledged + metrics.fixes.ledger.pending)
        // The batch that waited is still in its store, for the next run.
        #expect(metrics.fixes.ledger.pending >= waiting.map(\.fixes).reduce(0, +))
    }
}
