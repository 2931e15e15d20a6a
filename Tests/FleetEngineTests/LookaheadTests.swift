import BeekonDevice
import BeekonStore
import FleetTestSupport
import Foundation
import Testing

@testable import FleetEngine
@testable import FleetRuntime

/// `--warp max` lets devices run ahead of one another's outstanding answers
/// (`LoopSchedule.lookahead`). Whatever order real answers come back in and however turns are cut,
/// each device must live exactly what it lives on a clock held for every answer.
@Suite("Lookahead: devices run ahead of one another's answers")
struct LookaheadTests {
    static let start: Int64 = 1_781_510_400_000  // 2026-06-15T08:00:00Z

    /// Two groups on both platforms, with every fault that touches transfers or the world.
    static let yaml = """
        name: lookahead
        seed: 11
        clock: {start: 2026-06-15T08:00:00Z, warp: 60}
        groups:
          - name: walkers
            count: 6
            platform: {ios: 0.5, android: 0.5}
            route: walk.csv
            pace: walk
            startOffset: random
            spread: 1m
            config:
              preset: precision
              whenStationary: keepTracking
              sync: {syncThreshold: 4, intervalSeconds: 60}
          - name: late
            count: 3
            platform: android
            route: walk.csv
            pace: walk
            start: 7m
            config:
              preset: balanced
              sync: {syncThreshold: 2, intervalSeconds: 30}
        faults:
          - {at: 3m, for: 2m, select: {fraction: 0.5}, action: latency, params: {ms: 1500}}
          - {at: 6m, for: 2m, select: all, action: timeouts, params: {fraction: 0.5}}
          - {at: 9m, for: 2m, select: {fraction: 0.4}, action: networkOffline}
          - {at: 12m, for: 1m, select: {group: walkers}, action: revokePermission}
          - {at: 15m, select: {fraction: 0.3}, action: kill}
        """

    /// Answers that depend only on the request: each device's first upload is refused (503),
    /// every fifth hangs, the rest are taken.
    static func network() -> (SimulatedRequest) -> SimulatedAnswer {
        var uploads: [String: Int] = [:]
        return { request in
            guard case .upload = request.kind else { return .ok }
            let prior = uploads[request.device, default: 0]
            uploads[request.device] = prior + 1
            if prior == 0 { return .respond(status: 503) }
            return prior % 5 == 0 ? .hang : .ok
        }
    }

    /// What one device lived: what it sent (instant and bytes) and what it heard.
    struct Lived: Equatable {
        var sent: [String]
        var heard: [String]
        var state: String
    }

    static func lived(_ fleet: SimulatedFleet) -> [String: Lived] {
        var lived: [String: Lived] = [:]
        for request in fleet.sent {
            let fields = request.http.head.headerFields.map { "\($0.name.rawName)=\($0.value)" }
            lived[request.device, default: Lived(sent: [], heard: [], state: "")].sent.append(
                "\(request.sentAt) \(request.http.head.target) \(fields) "
                    + String(decoding: request.http.body, as: UTF8.self)
            )
        }
        for slot in fleet.engine.slots {
            lived[slot.id, default: Lived(sent: [], heard: [], state: "")].heard = slot.recent.uploads.elements.map {
                "\($0.at) \($0.batchID) \($0.outcome) \($0.latencyMillis)"
            }
            lived[slot.id]?.state = slot.listedState.description
        }
        return lived
    }

    /// Each device lived the same; a difference is reported at its first entry.
    static func expectSame(_ ahead: [String: Lived], _ held: [String: Lived]) {
        #expect(ahead.keys.sorted() == held.keys.sorted())
        for (device, lived) in held.sorted(by: { $0.key < $1.key }) {
            guard let other = ahead[device] else { continue }
            for (name, mine, theirs) in [("sent", other.sent, lived.sent), ("heard", other.heard, lived.heard)] {
                guard mine != theirs else { continue }
                let first =
                    (0..<min(mine.count, theirs.count)).first { mine[$0] != theirs[$0] }
                    ?? min(mine.count, theirs.count)
                Issue.record(
                    """
                    \(device) \(name) differs at \(first) of \(theirs.count): \
                    ahead \(mine.dropFirst(first).first?.prefix(160) ?? "none"), \
                    held \(theirs.dropFirst(first).first?.prefix(160) ?? "none")
                    """
                )
            }
            #expect(other.state == lived.state, "\(device)")
        }
    }

    static func fleet(_ workspace: Workspace) throws -> SimulatedFleet {
        try SimulatedFleet(
            fleet: try workspace.fleet(yaml),
            options: RunOptions(
                dataDirectory: workspace.data, ingest: "http://ingest.invalid/ingest",
                routeFolder: workspace.folder.path,
                transferTiming: .deterministic),
            network: network())
    }

    @Test(
        """
        each device sends the same requests and hears the same answers \
        at the same instants, whatever order answers come back in
        """,
        arguments: [1, 2, 3] as [UInt64])
    func sameAsHeldClock(order: UInt64) throws {
        let end = Self.start + 20 * 60_000
        let heldWorkspace = try Workspace()
        defer { heldWorkspace.cleanUp() }
        var held = try Self.fleet(heldWorkspace)
        held.advance(to: end)

        let aheadWorkspace = try Workspace()
        defer { aheadWorkspace.cleanUp() }
        var ahead = try Self.fleet(aheadWorkspace)
        var rng = SplitMix64(seed: order)
        _ = ahead.advanceAhead(to: end, rng: &rng)

        #expect(held.sent.count > 100, "too few requests to compare: \(held.sent.count)")
        #expect(ahead.sent.map(\.device) != held.sent.map(\.device), "the devices did not run ahead of one another")
        Self.expectSame(Self.lived(ahead), Self.lived(held))
        #expect(ahead.engine.metrics.sent.text == held.engine.metrics.sent.text)
        #expect(ahead.engine.metrics.batchesByOutcome == held.engine.metrics.batchesByOutcome)
        #expect(ahead.now == end)
        #expect(try ahead.storedFixes().map(\.id) == held.storedFixes().map(\.id))
        // Running ahead, a device stores many fixes in a turn, and they share a commit; the run's
        // history still counts each at its own instant.
        #expect(ahead.engine.metrics.history.rows == held.engine.metrics.history.rows)
        #expect(ahead.engine.metrics.fixes.ledger == held.engine.metrics.fixes.ledger)
        let commits = { (fleet: SimulatedFleet) in
            fleet.engine.slots.reduce(0) { $0 + (($1.storage.store as? DeviceStore)?.rowCommits ?? 0) }
        }
        let rows = held.engine.metrics.fixesStored + held.engine.metrics.geofenceEvents
        #expect(commits(held) == rows)
        // Each upload reads its store, which commits what waits: with these thresholds of 4 and
        // 2, about one commit in three is saved.
        #expect(commits(ahead) < rows * 4 / 5, "\(commits(ahead)) commits for \(rows) rows")
    }

    @Test("a command waits until every device stands at the instant the furthest reached, and finds each there")
    func commandsFindEveryDeviceAtOneInstant() throws {
        let end = Self.start + 20 * 60_000
        let revoke: (inout FleetLoop) -> Void = {
            _ = try? $0.act(.revokePermission, on: .fraction(0.5))
        }
        let grant: (inout FleetLoop) -> Void = { _ = try? $0.act(.grantPermission, on: .all) }

        let aheadWorkspace = try Workspace()
        defer { aheadWorkspace.cleanUp() }
        var ahead = try Self.fleet(aheadWorkspace)
        var rng = SplitMix64(seed: 5)
        let ranAt = ahead.advanceAhead(to: end, rng: &rng, commands: [(10, revoke), (30, grant)])
        try #require(ranAt.count == 2)
        #expect(ranAt[0] > Self.start && ranAt[0] < ranAt[1] && ranAt[1] < end)

        // The same commands at the same instants on a clock held for every answer.
        let heldWorkspace = try Workspace()
        defer { heldWorkspace.cleanUp() }
        var held = try Self.fleet(heldWorkspace)
        held.advance(to: ranAt[0])
        try held.command { revoke(&$0) }
        held.advance(to: ranAt[1])
        try held.command { grant(&$0) }
        held.advance(to: end)

        Self.expectSame(Self.lived(ahead), Self.lived(held))
        #expect(ahead.engine.metrics.sent.text == held.engine.metrics.sent.text)
        #expect(
            ahead.engine.publication.actions.elements.map(\.at) == held.engine.publication.actions.elements.map(\.at))
    }
}
