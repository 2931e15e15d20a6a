import BeekonDevice
import FleetTestSupport
import Foundation
import Testing

@testable import FleetDescription
@testable import FleetEngine
@testable import FleetRuntime

/// Max warp and modelled timing from every surface: the fleet file's `clock`, the run's options,
/// and the control API mid-run.
@Suite("Max warp and modelled timing: where they come from, and begun mid-run")
struct MaxWarpSwitchTests {
    /// The `TransferTimingTests` fleet with its `clock` block replaced.
    static func yaml(clock: String) -> String {
        Workspace.yaml(warp: 60).replacingOccurrences(
            of: "clock: {start: 2026-06-15T08:00:00Z, warp: 60}", with: "clock: \(clock)")
    }

    @Test(
        """
        the run's warp and timing: the options over the fleet file; by default as answered at warp 1 \
        and modelled at any other (max warp included), and at max warp the rate kept (the clock \
        record's slack) is the file's, else 1
        """,
        arguments: [
            ("{warp: 60}", nil, nil, false, true, 60),
            ("{warp: 1}", nil, nil, false, false, 1),
            ("{warp: 0.5}", nil, nil, false, true, 0.5),
            ("{warp: 60, timing: as-answered}", nil, nil, false, false, 60),
            ("{warp: 1, timing: modelled}", nil, nil, false, true, 1),
            ("{warp: 60, timing: auto}", Warp.rate(1), nil, false, false, 1),
            ("{warp: 60, deterministic: true}", nil, nil, false, true, 60),
            ("{warp: max}", nil, nil, true, true, 1),
            ("{warp: MAX, deterministic: false}", nil, nil, true, true, 1),
            ("{warp: max}", Warp.rate(30), nil, false, true, 30),
            ("{warp: max}", .rate(30), TransferTiming.asAnswered, false, false, 30),
            ("{warp: 60}", .max, nil, true, true, 60),
            ("{warp: 60, deterministic: true}", nil, .asAnswered, false, false, 60),
            ("{warp: 60}", nil, .deterministic, false, true, 60),
        ] as [(String, Warp?, TransferTiming?, Bool, Bool, Double)])
    func resolution(
        clock: String, warp: Warp?, timing: TransferTiming?, max: Bool, modelled: Bool, rate: Double
    ) throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let engine = try FleetLoop(
            fleet: try workspace.fleet(Self.yaml(clock: clock)),
            options: RunOptions(
                dataDirectory: workspace.data, ingest: "http://ingest.invalid/ingest", warp: warp,
                routeFolder: workspace.folder.path, transferTiming: timing))
        #expect(engine.clock.startsAtMaxWarp == max)
        #expect(engine.clock.transferTiming == (modelled ? .deterministic : .asAnswered))
        #expect(engine.clock.warp == rate)
    }

    @Test("max warp with timing as answered, asked for explicitly, is refused")
    func maxWarpAsAnsweredRefused() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        #expect(throws: RunError.self) {
            try FleetLoop(
                fleet: try workspace.fleet(Self.yaml(clock: "{warp: max}")),
                options: RunOptions(
                    dataDirectory: workspace.data, ingest: "http://ingest.invalid/ingest",
                    routeFolder: workspace.folder.path, transferTiming: .asAnswered))
        }
    }

    /// The instant the fleet's first upload leaves (the same in every run of this fleet).
    static func firstUploadSent(_ workspace: Workspace) throws -> Int64 {
        var fleet = try SimulatedFleetTests.fleet(workspace) { _ in .respond(status: 200, afterMillis: 2_000) }
        while fleet.sent.isEmpty, fleet.now < RunStartResolveTests.start + 10 * 60_000 {
            fleet.advance(byMillis: 1)
        }
        return try #require(fleet.sent.first).sentAt
    }

    @Test(
        """
        max warp begun while an upload is out under real timing: the device hears it at its \
        modelled instant (send + 100 ms), or just past the switch if that has gone by, and every \
        later answer 100 virtual ms after its send
        """,
        arguments: [0, 50, 99, 100, 1_000] as [Int64])
    func beginMidRun(switchAfterSend: Int64) throws {
        let probe = try Workspace()
        defer { probe.cleanUp() }
        let sentAt = try Self.firstUploadSent(probe)

        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        // As answered, this server's answers take 2 virtual s.
        var fleet = try SimulatedFleetTests.fleet(workspace) { _ in .respond(status: 200, afterMillis: 2_000) }
        fleet.advance(to: sentAt + switchAfterSend)
        let first = try #require(fleet.sent.first)
        #expect(first.sentAt == sentAt)
        fleet.setWarp(.max)
        #expect(fleet.maxWarp)
        fleet.advance(byMillis: 10_000)
        let heard = try #require(
            fleet.engine.slots.flatMap(\.recent.uploads.elements).first {
                $0.batchID.text == SimulatedFleetTests.batchID(first)
            })
        #expect(heard.outcome == .status(200))
        #expect(heard.at == max(sentAt + 100, sentAt + switchAfterSend + 1))

        // Each device keeps its last 50 uploads: two minutes of them.
        fleet.advance(byMillis: 2 * 60_000)
        let records = fleet.engine.slots.flatMap(\.recent.uploads.elements)
        // Every upload sent after the switch and heard by the end took 100 virtual ms.
        let later = fleet.sent.filter { $0.sentAt > sentAt + switchAfterSend }
        let laterHeard = later.compactMap { request in
            records.first { $0.batchID.text == SimulatedFleetTests.batchID(request) }
        }
        #expect(laterHeard.count >= 3, "too few uploads after the switch to judge")
        #expect(laterHeard.allSatisfy { $0.latencyMillis == 100 })
    }

    @Test("a warp set after max warp ends it; timing stays modelled, so the run stays reproducible")
    func rateEndsMaxWarp() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        var fleet = try SimulatedFleetTests.fleet(workspace) { _ in .respond(status: 200, afterMillis: 2_000) }
        fleet.setWarp(.max)
        fleet.advance(byMillis: 60_000)
        fleet.setWarp(.rate(30))
        #expect(!fleet.maxWarp && fleet.engine.clock.warp == 30)
        #expect(fleet.engine.clock.transferTiming == .deterministic)
        fleet.advance(byMillis: 4 * 60_000)
        let latencies = Set(fleet.engine.slots.flatMap(\.recent.uploads.elements).map(\.latencyMillis))
        #expect(latencies == [100])
    }
}
