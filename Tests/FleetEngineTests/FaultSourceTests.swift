import FleetDescription
import FleetTestSupport
import Foundation
import Testing

@testable import FleetEngine
@testable import FleetRuntime

/// A fault applied through the control API (REST, the page) is one fault as a timeline fault
/// is: listed, timed, ended and drained by the same code, at the same virtual instants.
@Suite("Faults from the API and from the timeline")
struct FaultSourceTests {
    static let minute: Int64 = 60_000
    /// Half the fleet, the same devices whoever draws (a seeded fraction's draws do not depend on
    /// the fault's number).
    static let half = FaultSelector.fraction(0.5, seed: 7)
    /// When the fault begins and ends, from the start: at 250 ms past the second, where no
    /// device has an event, so a command (which runs after the instant's events) and a timeline
    /// barrier (which may run before some) find the devices alike.
    static let began: Int64 = 2 * minute + 250
    static let ended: Int64 = 12 * minute + 250

    /// How the API's `networkOffline` ends, ten minutes after it began at 2 min.
    enum End: String, CaseIterable {
        /// `networkOnline` on every device.
        case oppositeOnAll
        /// `networkOnline` on the same seeded fraction.
        case oppositeOnTheSameDevices
        /// `DELETE /api/v1/faults/{fault}`: its opposite on its own devices.
        case endNow
    }

    static func fleet(_ workspace: Workspace, faults: String = "") throws -> SimulatedFleet {
        try SimulatedFleetTests.fleet(workspace, faults: faults) { _ in .respond(status: 200, afterMillis: 500) }
    }

    /// A fault's drain without its number and source, which are all that may differ.
    static func figures(_ drain: FaultDrain) -> [Int64?] {
        [
            drain.startedAt, drain.endedAt, Int64(drain.pendingBefore), Int64(drain.pendingAtEnd), drain.drainMillis,
        ]
    }

    @Test(
        """
        networkOffline on a seeded half of the fleet through the API at 2 min, ended 10 min later by \
        networkOnline (on all, or on the same half) or by End now, is listed active with source api, \
        then done, and its drain is the timeline's `for: 10m` fault's at the same instants
        """,
        arguments: End.allCases)
    func apiFaultDrainsAsTheTimelines(end: End) throws {
        let timelineSpace = try Workspace()
        defer { timelineSpace.cleanUp() }
        var timeline = try Self.fleet(
            timelineSpace,
            faults: "faults:\n  - {at: 2m250ms, for: 10m, select: {fraction: 0.5, seed: 7}, action: networkOffline}\n")
        let start = timeline.engine.clock.startMillis
        timeline.advance(to: start + 17 * Self.minute)
        let expected = try #require(timeline.engine.metrics.drains.first)

        let apiSpace = try Workspace()
        defer { apiSpace.cleanUp() }
        var api = try Self.fleet(apiSpace)
        #expect(api.engine.clock.startMillis == start)
        api.advance(to: start + Self.began)
        let offline = try api.command { (engine) throws(FleetControlError) in
            try engine.act(.networkOffline, on: Self.half)
        }
        #expect(!offline.isEmpty && offline.count < 3, "\(offline)")
        let listed = try #require(api.engine.timelineView.first)
        #expect(api.engine.timelineView.count == 1)
        #expect(listed.source == .api && listed.line == nil && listed.action == .networkOffline)
        #expect(listed.phase == .active && listed.endable && listed.applied == offline.count)
        #expect(listed.startsAt == start + Self.began && listed.endsAt == nil)
        #expect(listed.selector == "fraction: 0.5, seed: 7")
        api.advance(to: start + Self.ended)
        #expect(api.engine.metrics.drains.isEmpty, "the fault is still on")
        switch end {
        case .oppositeOnAll:
            _ = try api.command { (engine) throws(FleetControlError) in try engine.act(.networkOnline, on: .all) }
        case .oppositeOnTheSameDevices:
            _ = try api.command { (engine) throws(FleetControlError) in
                try engine.act(.networkOnline, on: Self.half)
            }
        case .endNow:
            try api.command { (engine) throws(FleetControlError) in try engine.endFaultEarly(listed.fault) }
        }
        let ended = try #require(api.engine.timelineView.first)
        #expect(ended.phase == .done && !ended.endable)
        #expect(ended.endsAt == start + Self.ended && ended.endedEarlyAt == start + Self.ended)
        api.advance(to: start + 17 * Self.minute)

        let drain = try #require(api.engine.metrics.drains.first)
        #expect(api.engine.metrics.drains.count == 1)
        #expect(drain.source == .api && drain.fault == listed.fault && drain.action == .networkOffline)
        #expect(expected.source == .timeline && expected.fault == 0)
        #expect(drain.pendingAtEnd > drain.pendingBefore, "the devices offline held their fixes")
        #expect(Self.figures(drain) == Self.figures(expected), "\(drain) against \(expected)")
        // The run's timeline lists it as it lists the file's: when, on how many, until when.
        let ran = try #require(api.engine.metrics.timeline.first)
        let fileRan = try #require(timeline.engine.metrics.timeline.first)
        #expect(ran.source == .api && fileRan.source == .timeline)
        #expect([ran.startedAt, ran.endsAt] == [fileRan.startedAt, fileRan.endsAt])
        #expect(ran.applied == fileRan.applied)
        // The devices lived the same ten minutes offline: the same requests, in the same order.
        #expect(api.engine.metrics.sent == timeline.engine.metrics.sent)
    }

    @Test(
        """
        an API fault at an instant where devices store fixes starts from the backlog before that \
        instant, as a timeline fault there does, though no fault measured drains before it
        """)
    func backlogBeforeTheInstant() throws {
        let timelineSpace = try Workspace()
        defer { timelineSpace.cleanUp() }
        var timeline = try Self.fleet(
            timelineSpace, faults: "faults:\n  - {at: 2m, for: 10m, select: all, action: networkOffline}\n")
        let start = timeline.engine.clock.startMillis
        timeline.advance(to: start + 2 * Self.minute)
        let apiSpace = try Workspace()
        defer { apiSpace.cleanUp() }
        var api = try Self.fleet(apiSpace)
        api.advance(to: start + 2 * Self.minute)
        let stored = api.engine.metrics.fixes.ledger.pending
        _ = try api.command { (engine) throws(FleetControlError) in try engine.act(.networkOffline, on: .all) }
        let before = try #require(api.engine.faults.drains.underway.values.first?.pending)
        #expect(before == timeline.engine.faults.drains.underway[0]?.pending)
        #expect(before < stored, "the fixes stored at 2 min itself count after the fault's start")
    }

    @Test(
        """
        what the API applies is listed as a fault only when it begins one: a recovery ends faults \
        it covers, a control is no fault, and an opposite that may miss some of the fault's devices \
        (another draw of a fraction, a state) leaves it on
        """)
    func whatIsAFault() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        var fleet = try Self.fleet(workspace)
        fleet.advance(byMillis: 2 * Self.minute)
        let applied: [(FleetAction, FaultSelector)] = [
            (.revokePermission, .group("walkers")),
            (.latency(millis: 800), .all),
            (.sync, .all),
            (.networkOnline, .all),
            (.latency(millis: 0), .fraction(1, seed: nil)),
            (.grantPermission, .state("paused*")),
        ]
        for (action, selector) in applied {
            _ = try fleet.command { (engine) throws(FleetControlError) in try engine.act(action, on: selector) }
        }
        let listed = fleet.engine.timelineView.map { "\($0.action.rawValue) \($0.phase.rawValue)" }
        #expect(listed == ["revokePermission active", "latency active"])
        _ = try fleet.command { (engine) throws(FleetControlError) in
            try engine.act(.grantPermission, on: .group("walkers"))
        }
        _ = try fleet.command { (engine) throws(FleetControlError) in try engine.act(.latency(millis: 0), on: .all) }
        #expect(fleet.engine.timelineView.map(\.phase) == [.done, .done])
        #expect(fleet.engine.metrics.drains.map(\.action) == [.revokePermission, .latency])
        #expect(fleet.engine.metrics.drains.allSatisfy { $0.source == .api })
    }

    @Test(
        "shards that each took an API fault merge it as one, its devices and backlogs added up, as a timeline fault's")
    func shardsMergeOneFault() {
        var parts = [FleetMetrics(), FleetMetrics()]
        for (part, applied) in [(0, 2), (1, 1)] {
            parts[part].timeline = [
                TimelineFault(
                    fault: 3, source: .api, action: .networkOffline, startedAt: 10, endsAt: 20, applied: applied)
            ]
            parts[part].drains = [
                FaultDrain(
                    fault: 3, source: .api, action: .networkOffline, startedAt: 10, endedAt: 20,
                    pendingBefore: applied, pendingAtEnd: 10 * applied, drainMillis: nil)
            ]
        }
        let whole = FleetMetrics.merged(parts)
        #expect(whole.timeline.map { [$0.fault, $0.applied] } == [[3, 3]])
        #expect(whole.drains.map { [$0.fault, $0.pendingBefore, $0.pendingAtEnd] } == [[3, 3, 30]])
        #expect(whole.timeline.first?.source == .api && whole.drains.first?.source == .api)
    }

    @Test(
        "a selector covers another when every device the other picks is one it picks, whatever the devices are",
        arguments: [
            (FaultSelector.all, FaultSelector.fraction(0.2, seed: nil), true),
            (.group("walkers"), .group("walkers"), true),
            (.group("walkers"), .group("drivers"), false),
            (.group("walkers"), .all, false),
            (.ids(["a", "b"]), .ids(["b"]), true),
            (.ids(["a"]), .ids(["a", "b"]), false),
            (.fraction(0.5, seed: 7), .fraction(0.2, seed: 7), true),
            (.fraction(0.2, seed: 7), .fraction(0.5, seed: 7), false),
            (.fraction(0.5, seed: 8), .fraction(0.2, seed: 7), false),
            (.fraction(0.5, seed: nil), .fraction(0.5, seed: nil), false),
            (.state("paused*"), .state("paused*"), false),
        ])
    func covers(selector: FaultSelector, other: FaultSelector, covers: Bool) {
        #expect(selector.covers(other) == covers)
    }
}
