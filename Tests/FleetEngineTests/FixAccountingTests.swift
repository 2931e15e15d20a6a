import BeekonDevice
import BeekonStore
import FleetDescription
import FleetTestSupport
import Foundation
import Testing

@testable import FleetEngine
@testable import FleetRuntime

/// Every admitted fix is accounted for: acknowledged, rejected, pending, expired, deleted or
/// lost, counted from the stores' own files, per group and for the fleet, on the simulated
/// driver's exact virtual time.
@Suite("Fix accounting: where every admitted fix went")
struct FixAccountingTests {
    static func fleet(
        _ workspace: Workspace, faults: String = "",
        network: @escaping (SimulatedRequest) -> SimulatedAnswer
    ) throws -> SimulatedFleet {
        try SimulatedFleetTests.fleet(workspace, faults: faults, network: network)
    }

    /// Fix ids in uploads sent by `instant` (all by default), each as often as it was sent.
    static func sentFixIDs(_ fleet: SimulatedFleet, by instant: Int64 = .max) throws -> [String] {
        try fleet.sent.filter { if case .upload = $0.kind { $0.sentAt <= instant } else { false } }
            .flatMap { try SimulatedFleetTests.locationIDs($0) }
    }

    /// The identity, for the fleet and each group, and the groups adding up to the fleet.
    static func expectBalanced(_ metrics: FleetMetrics, sourceLocation: SourceLocation = #_sourceLocation) {
        let fixes = metrics.fixes
        #expect(
            fixes.unaccounted == 0, "\(fixes.ledger), carried over \(fixes.carriedOver)", sourceLocation: sourceLocation
        )
        #expect(metrics.fixesByGroup.allSatisfy { $0.unaccounted == 0 }, sourceLocation: sourceLocation)
        #expect(
            metrics.fixesByGroup.map(\.ledger).reduce(FixLedger(), +) == fixes.ledger, sourceLocation: sourceLocation)
    }

    @Test("a healthy server: what was acknowledged reached it once, the rest is pending, nothing is lost")
    func healthy() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        var fleet = try Self.fleet(workspace) { _ in .respond(status: 200, afterMillis: 80) }
        fleet.advance(byMillis: 10 * 60_000)
        let metrics = fleet.engine.snapshot()
        let ledger = metrics.fixes.ledger
        Self.expectBalanced(metrics)
        #expect(ledger.admitted > 300 && ledger.lost == 0 && ledger.rejected == 0 && ledger.expired == 0)
        #expect(metrics.fixes.carriedOver == 0)
        // Answered by now: sent 80 ms before it at the latest.
        let sent = try Self.sentFixIDs(fleet, by: fleet.engine.metrics.virtualNow - 80)
        #expect(Set(sent).count == sent.count, "a fix went twice")
        #expect(ledger.acknowledged == sent.count)
        #expect(ledger.pending == (try fleet.storedFixes().count))
        #expect(ledger.pending == fleet.engine.slots.compactMap(\.device?.pendingUploadCount).reduce(0, +))
        #expect(metrics.fixes.maxPending >= ledger.pending && metrics.fixes.maxPending >= 3)
        #expect(metrics.fixes.unheardAcknowledgements == FixAccount.Resent())
        // syncThreshold 3 at one fix a second: a fix waits about 2 s for its batch, plus 80 ms.
        let age = metrics.fixes.ageAtAcknowledgement
        #expect(age.count == ledger.acknowledged)
        #expect(age.percentile(0.5) >= 80 && age.max < 10_000, "p50 \(age.percentile(0.5)), max \(age.max)")
    }

    @Test("batches answered 400 are rejected: their fixes are dropped, counted, and never sent again")
    func rejected() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        var fleet = try Self.fleet(workspace) { _ in .respond(status: 400, afterMillis: 80) }
        fleet.advance(byMillis: 5 * 60_000)
        let metrics = fleet.engine.snapshot()
        Self.expectBalanced(metrics)
        let sent = try Self.sentFixIDs(fleet, by: fleet.engine.metrics.virtualNow - 80)
        #expect(metrics.fixes.ledger.rejected == sent.count && sent.count > 100)
        #expect(Set(sent).count == sent.count)
        #expect(metrics.fixes.ledger.acknowledged == 0)
        #expect(metrics.fixes.ageAtAcknowledgement.count == 0)
    }

    enum Unheard: String, CaseIterable {
        /// A `timeouts` fault takes the first upload of each device: it hears its timeout at 30 s,
        /// while the server's 2xx comes (the fault leaves the request on the wire).
        case afterTimeout
        /// The app is killed while its upload is out; the 2xx reaches a process that is gone.
        case afterProcessDeath
    }

    @Test(
        "a 2xx the device never heard is counted as an unheard acknowledgement, and exactly its fixes go again",
        arguments: Unheard.allCases)
    func unheardAcknowledgement(_ unheard: Unheard) throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let faults: String
        let network: (SimulatedRequest) -> SimulatedAnswer
        switch unheard {
        case .afterTimeout:
            faults = """
                faults:
                  - {at: 0s, for: 1m, select: all, action: timeouts, params: {fraction: 1}}
                """
            // One upload each in the fault's minute: the next goes after the timeout and backoff.
            network = { _ in .respond(status: 200, afterMillis: 100) }
        case .afterProcessDeath:
            faults = """
                faults:
                  - {at: 2m, for: 1m, select: all, action: kill}
                """
            network = { _ in .respond(status: 200, afterMillis: 20_000) }
        }
        var fleet = try Self.fleet(workspace, faults: faults, network: network)
        fleet.advance(byMillis: 6 * 60_000)
        let metrics = fleet.engine.snapshot()
        Self.expectBalanced(metrics)
        let sent = try Self.sentFixIDs(fleet)
        let resent = sent.count - Set(sent).count
        #expect(metrics.fixes.unheardAcknowledgements.batches == 3, "one per device")
        #expect(metrics.fixes.unheardAcknowledgements.fixes == resent && resent > 0)
        #expect(metrics.fixesByGroup[0].unheardAcknowledgements == metrics.fixes.unheardAcknowledgements)
    }

    @Test(
        """
        a device deleted through the admin API while its upload is out never hears the 2xx: \
        counted as an unheard acknowledgement, its fixes pending in its store
        """
    )
    func unheardAfterDeletion() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        var fleet = try Self.fleet(workspace) { _ in .respond(status: 200, afterMillis: 20_000) }
        fleet.advance(byMillis: 2 * 60_000)
        let deleted = fleet.engine.slots[0].id
        while fleet.engine.slots[0].waiting.transfersOut.isEmpty { fleet.advance(byMillis: 1_000) }
        let out = try #require(fleet.engine.transfers[fleet.engine.slots[0].waiting.transfersOut[0]])
        _ = try fleet.command { (engine) throws(FleetControlError) in try engine.delete(deleted) }
        fleet.advance(byMillis: 3 * 60_000)
        let metrics = fleet.engine.snapshot()
        Self.expectBalanced(metrics)
        #expect(metrics.fixes.unheardAcknowledgements == FixAccount.Resent(batches: 1, fixes: out.fixes))
        #expect(metrics.fixesByGroup[0].unheardAcknowledgements == metrics.fixes.unheardAcknowledgements)
        #expect(Array(metrics.batchesByOutcome.keys) == [.status(200)])
    }

    @Test(
        """
        a 2xx that would come after the device's timeout never comes: the request is closed on the \
        wire when the device gives up (counted, not an unheard acknowledgement), and exactly its \
        fixes go again
        """
    )
    func cancelledAtTimeout() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        var answered: Set<String> = []
        var fleet = try Self.fleet(workspace) { request in
            answered.insert(request.device).inserted ? .respond(status: 200, afterMillis: 40_000) : .ok
        }
        fleet.advance(byMillis: 6 * 60_000)
        let metrics = fleet.engine.snapshot()
        Self.expectBalanced(metrics)
        let sent = try Self.sentFixIDs(fleet)
        #expect(metrics.cancelledOnWire == 3, "one per device")
        #expect(metrics.fixes.unheardAcknowledgements == FixAccount.Resent())
        #expect(metrics.answersAfterTimeout == 0)
        #expect(sent.count - Set(sent).count > 0, "the cancelled batches went again")
        #expect(metrics.batchesByOutcome[.failed(.timeout)] == nil && metrics.batchesByOutcome[.warpTimeout] == 3)
    }

    @Test("after a network outage the drain is timed from the fault's end until the backlog is back where it was")
    func drainAfterOutage() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let faults = """
            faults:
              - {at: 2m, for: 10m, select: all, action: networkOffline}
            """
        var fleet = try Self.fleet(workspace, faults: faults) { _ in .respond(status: 200, afterMillis: 500) }
        let start = fleet.engine.clock.startMillis
        fleet.advance(byMillis: 11 * 60_000)
        #expect(fleet.engine.metrics.drains.isEmpty, "the fault has not ended")
        fleet.advance(byMillis: 5 * 60_000)
        let metrics = fleet.engine.snapshot()
        Self.expectBalanced(metrics)
        let drain = try #require(metrics.drains.first)
        #expect(metrics.drains.count == 1)
        #expect(drain.fault == 0 && drain.action == .networkOffline)
        #expect(drain.startedAt == start + 120_000 && drain.endedAt == start + 720_000)
        // Ten minutes offline at a fix a second, three devices.
        #expect(drain.pendingAtEnd > drain.pendingBefore + 1_500)
        #expect(metrics.fixes.maxPending >= drain.pendingAtEnd)
        // Back online, each device uploads at once, batch after batch (100 fixes, 500 ms each).
        let millis = try #require(drain.drainMillis)
        #expect(millis >= 500 && millis < 60_000, "\(millis) ms")
    }
}

@Suite("A group without a config block")
struct NoConfigGroupTests {
    @Test("syncs with the SDK's defaults to the run's ingest (issue #16 item 1): its fixes are uploaded")
    func uploads() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let yaml = """
            name: plain
            seed: 3
            clock: {start: 2026-06-15T08:00:00Z, warp: 60}
            groups:
              - name: walkers
                count: 2
                platform: android
                route: walk.csv
                pace: walk
            """
        var fleet = try workspace.simulated(yaml, timing: .deterministic)
        fleet.advance(byMillis: 30 * 60_000)
        let uploads = fleet.sent.filter { if case .upload = $0.kind { true } else { false } }
        #expect(!uploads.isEmpty, "a group without config sent nothing")
        #expect(uploads.allSatisfy { $0.http.head.target.hasSuffix("/ingest") }, "\(uploads.map(\.http.head.target))")
        #expect(fleet.engine.metrics.fixes.ledger.acknowledged > 0)
    }
}

@Suite("Phone models follow the platform (issue #16 item 11)")
struct PhoneModelTests {
    @Test(
        "each platform takes its own names from a group's list, else its table",
        arguments: [
            (Platform.ios, ["iPhone15,3", "Pixel 8"], ["iPhone15,3"]),
            (.android, ["iPhone15,3", "Pixel 8"], ["Pixel 8"]),
            (.ios, ["Pixel 8"], PhoneModels.ios),
            (.android, [], PhoneModels.android),
            (.ios, ["iPad13,1", "iPhone16,2"], ["iPad13,1", "iPhone16,2"]),
        ] as [(Platform, [String], [String])])
    func choices(platform: Platform, given: [String], expected: [String]) {
        #expect(PhoneModels.choices(for: platform, given: given) == expected)
        #expect(PhoneModels.ios.allSatisfy { PhoneModels.platform(of: $0) == .ios })
        #expect(PhoneModels.android.allSatisfy { PhoneModels.platform(of: $0) == .android })
    }

    @Test("in a mixed group no iOS device reports an Android model, and none reports no model")
    func mixedGroup() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let yaml = """
            name: mixed
            seed: 5
            clock: {start: 2026-06-15T08:00:00Z, warp: 60}
            groups:
              - name: walkers
                count: 40
                platform: {ios: 0.5, android: 0.5}
                model: ["iPhone15,3", "Pixel 8"]
                route: walk.csv
              - name: plain
                count: 20
                platform: {ios: 0.5, android: 0.5}
                route: walk.csv
            """
        let fleet = try workspace.simulated(yaml, timing: .deterministic)
        let slots = fleet.engine.slots
        #expect(Set(slots.map(\.identity.platform)) == [.ios, .android])
        for slot in slots {
            #expect(
                PhoneModels.platform(of: slot.identity.model) == slot.identity.platform,
                "\(slot.id): \(slot.identity.model) on \(slot.identity.platform)")
        }
        #expect(
            slots.filter { $0.group == 0 }.allSatisfy {
                $0.identity.model == ($0.identity.platform == .ios ? "iPhone15,3" : "Pixel 8")
            })
        #expect(Set(slots.filter { $0.group == 1 }.map(\.identity.model)).count > 2, "the tables give several models")
    }
}
