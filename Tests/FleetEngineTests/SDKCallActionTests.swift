import BeekonDevice
import FleetDescription
import FleetTestSupport
import Foundation
import Testing

@testable import FleetEngine
@testable import FleetRuntime

/// `getCurrentLocation`, `deleteLocations`, `shutdown` and `gpsJump` as the fleet file's
/// timeline runs them, on the simulated driver at exact virtual instants.
@Suite("SDK calls and GPS jumps from the timeline")
struct SDKCallActionTests {

    /// `clock.start`, Unix ms.
    static let start: Int64 = 1_781_510_400_000

    /// Two Android walkers on a clean provider (no gaps, no outliers), a fix a second admitted.
    static func yaml(autoStart: Bool = true, sync: String = "false", faults: String) -> String {
        """
        name: sdk-calls
        seed: 5
        clock: {start: 2026-06-15T08:00:00Z, warp: 60}
        groups:
          - name: walkers
            count: 2
            platform: android
            route: walk.csv
            pace: walk
            autoStart: \(autoStart)
            provider: {gapsPerHour: 0, outlierProbability: 0}
            config:
              preset: precision
              minTimeBetweenLocationsSeconds: 1
              minDistanceBetweenLocationsMeters: 0
              whenStationary: keepTracking
              sync: \(sync)
        faults:
        \(faults)
        """
    }

    static func fleet(_ workspace: Workspace, _ yaml: String) throws -> SimulatedFleet {
        try workspace.simulated(yaml)
    }

    /// Every fix device `slot` holds in its store, oldest first.
    static func stored(_ fleet: SimulatedFleet, _ slot: Int) throws -> [Location] {
        try fleet.engine.locations(of: fleet.engine.slots[slot].id, from: 0, to: .max, limit: 100_000)
    }

    // MARK: getCurrentLocation

    enum Expected: Equatable, CustomStringConvertible {
        case fix, timedOut
        case unavailable(PauseReason)

        init(_ answer: CurrentLocationAnswer) {
            switch answer {
            case .fix: self = .fix
            case .timedOut: self = .timedOut
            case .unavailable(let reason): self = .unavailable(reason)
            }
        }

        var description: String {
            switch self {
            case .fix: "fix"
            case .timedOut: "timedOut"
            case .unavailable(let reason): "unavailable(\(reason))"
            }
        }
    }

    @Test(
        "getCurrentLocation answers as the SDK does, at the instant it should",
        arguments: [
            // Not tracking: the provider starts for the call; its first fix comes 1 s later.
            (false, "- {at: 1m, action: getCurrentLocation}", Expected.fix, Int64(61_000)),
            // A timeout shorter than the provider's first fix: the SDK's null.
            (false, "- {at: 1m, action: getCurrentLocation, params: {timeoutSeconds: 0.5}}", .timedOut, 60_500),
            // Permission already revoked: the SDK's error, at once.
            (
                true,
                "- {at: 30s, action: revokePermission}\n  - {at: 1m, action: getCurrentLocation}",
                .unavailable(.permissionRevoked), 60_000
            ),
            // Location services go off while the call waits: it fails then.
            (
                false,
                "- {at: 1m, action: getCurrentLocation}\n  - {at: 60500ms, action: locationServicesOff}",
                .unavailable(.locationDisabled), 60_500
            ),
        ])
    func currentLocation(autoStart: Bool, faults: String, expected: Expected, answeredAfter: Int64) throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        var fleet = try Self.fleet(workspace, Self.yaml(autoStart: autoStart, faults: "  " + faults))
        fleet.advance(byMillis: 2 * 60_000)
        for slot in fleet.engine.slots {
            let answer = try #require(slot.recent.lastCurrentLocation, "\(slot.id) heard no answer")
            #expect(Expected(answer.answer) == expected, "\(slot.id)")
            #expect(answer.at == Self.start + answeredAfter, "\(slot.id)")
            #expect(answer.requestID == 1)
            #expect(slot.recent.currentLocationCalls == 1)
            if case .fix(let fix) = answer.answer {
                #expect(fix.trigger == .manual)
                #expect(fix.timestamp == Self.start + answeredAfter)
            }
        }
        let counts = fleet.engine.metrics.currentLocation
        #expect([counts.fix, counts.timedOut, counts.unavailable].reduce(0, +) == 2)
        #expect(
            fleet.logged.contains {
                $0.level == .debug && $0.message.hasPrefix("device walkers-0001: getCurrentLocation #1 answered: ")
            })
        if !autoStart {
            // The one-shot fix is the caller's only: nothing stored, and the provider is off again.
            #expect(fleet.engine.metrics.fixes.ledger.admitted == 0)
            #expect(fleet.engine.slots.allSatisfy { $0.world.accuracy == nil })
        }
    }

    @Test("each getCurrentLocation call of a device gets the next request id, so a seeded run replays it")
    func requestIDsCount() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let faults = """
              - {at: 1m, action: getCurrentLocation, params: {accuracy: low}}
              - {at: 2m, select: {ids: [walkers-0002]}, action: getCurrentLocation}
            """
        var fleet = try Self.fleet(workspace, Self.yaml(faults: faults))
        fleet.advance(byMillis: 3 * 60_000)
        #expect(fleet.engine.slots.map(\.recent.currentLocationCalls) == [1, 2])
        #expect(fleet.engine.slots.map { $0.recent.lastCurrentLocation?.requestID } == [1, 2])
        #expect(fleet.engine.metrics.currentLocation.fix == 3)
    }

    // MARK: deleteLocations

    @Test(
        """
        deleteLocations removes the stored fixes at or before its instant (all without one), the \
        device's pending count follows, and the fix accounting counts them deleted
        """
    )
    func deleteLocations() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let faults = """
              - {at: 2m, action: deleteLocations, params: {before: "2026-06-15T08:01:00Z"}}
              - {at: 3m, select: {ids: [walkers-0001]}, action: deleteLocations}
            """
        var fleet = try Self.fleet(workspace, Self.yaml(faults: faults))
        fleet.advance(to: Self.start + 90_000)
        let before = try (0..<2).map { try Self.stored(fleet, $0) }
        #expect(before.allSatisfy { $0.contains { $0.timestamp <= Self.start + 60_000 } })

        fleet.advance(to: Self.start + 150_000)
        for slot in 0..<2 {
            let kept = try Self.stored(fleet, slot)
            #expect(kept.allSatisfy { $0.timestamp > Self.start + 60_000 }, "fixes at or before 08:01 remain")
            let ledger = try #require(fleet.engine.slots[slot].storage.ledger)
            #expect(ledger.deleted == before[slot].count { $0.timestamp <= Self.start + 60_000 })
            #expect(ledger.pending == kept.count)
            #expect(fleet.engine.slots[slot].device?.pendingUploadCount == kept.count)
        }

        fleet.advance(to: Self.start + 240_000)
        let wiped = try Self.stored(fleet, 0)
        #expect(wiped.allSatisfy { $0.timestamp >= Self.start + 180_000 }, "walkers-0001 kept fixes from before 3m")
        #expect(try Self.stored(fleet, 1).contains { $0.timestamp < Self.start + 180_000 }, "walkers-0002 lost fixes")
        let account = fleet.engine.metrics.fixes
        #expect(account.ledger.deleted == fleet.engine.slots.compactMap(\.storage.ledger).map(\.deleted).reduce(0, +))
        #expect(
            account.carriedOver + account.ledger.admitted
                == account.ledger.acknowledged + account.ledger.rejected + account.ledger.pending
                + account.ledger.expired + account.ledger.deleted + account.ledger.lost)
        #expect(account.unaccounted == 0)
    }

    // MARK: shutdown

    @Test("shutdown drops the state holder: the device is idle and takes no fix, its store keeps what it held")
    func shutdown() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let faults = """
              - {at: 2m, action: shutdown}
              - {at: 4m, select: {ids: [walkers-0002]}, action: start}
            """
        var fleet = try Self.fleet(workspace, Self.yaml(faults: faults))
        fleet.advance(to: Self.start + 120_000)
        let admitted = fleet.engine.slots.map { $0.storage.ledger?.admitted ?? 0 }
        #expect(admitted.allSatisfy { $0 > 100 })
        fleet.advance(to: Self.start + 230_000)
        for (slot, held) in zip(fleet.engine.slots, admitted) {
            #expect(slot.listedState == .sdk(.idle))
            #expect(slot.recent.stateHistory.elements.last == StateChange(at: Self.start + 120_000, state: .sdk(.idle)))
            #expect(slot.storage.ledger?.admitted == held, "\(slot.id) took fixes after shutdown")
            #expect(slot.storage.ledger?.pending == held, "\(slot.id)'s store lost fixes")
            #expect(slot.world.accuracy == nil, "\(slot.id)'s provider still runs")
        }
        fleet.advance(to: Self.start + 300_000)
        #expect(fleet.engine.slots[0].storage.ledger?.admitted == admitted[0])
        #expect(fleet.engine.slots[1].listedState == .sdk(.tracking))
        #expect(
            fleet.engine.slots[1].storage.ledger?.admitted ?? 0 > admitted[1], "start() after shutdown tracks again")
    }

    // MARK: gpsJump

    @Test(
        """
        gpsJump moves the provider's fixes that far for its `for`: the SDK labels the jump and the \
        return implausible_speed, the fixes between are that far from the truth, and then the truth again
        """
    )
    func gpsJump() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let faults = "  - {at: 1m, for: 30s, action: gpsJump, params: {meters: 5000, bearing: 90}}"
        var fleet = try Self.fleet(workspace, Self.yaml(faults: faults))
        fleet.advance(to: Self.start + 75_000)
        #expect(fleet.engine.slots.allSatisfy { $0.world.gpsJump?.bearing == 90 })
        fleet.advance(to: Self.start + 150_000)
        for slot in 0..<2 {
            let fixes = try Self.stored(fleet, slot)
            let flagged = fixes.filter { $0.quality == .implausibleSpeed }
            #expect(flagged.count == 2, "\(flagged.map(\.timestamp))")
            let (jump, back) = (try #require(flagged.first), try #require(flagged.last))
            #expect((Self.start + 60_000...Self.start + 61_000).contains(jump.timestamp))
            #expect((Self.start + 90_000...Self.start + 91_000).contains(back.timestamp))
            for fix in fixes {
                let truth = fleet.engine.truePosition(of: slot, at: fix.timestamp)
                let off = Geodesy.distanceMeters(
                    fromLatitude: truth.latitude, longitude: truth.longitude, toLatitude: fix.latitude,
                    longitude: fix.longitude)
                let jumped = fix.timestamp >= jump.timestamp && fix.timestamp < back.timestamp
                #expect(abs(off - (jumped ? 5000 : 0)) < 50, "\(fix.timestamp - Self.start) ms: \(off) m off")
            }
            #expect(fleet.engine.slots[slot].world.gpsJump == nil, "the jump did not end")
        }
    }

    @Test("without a bearing each device's jump draws its own from its seed: a run replays it exactly")
    func gpsJumpBearingReplays() throws {
        var bearings: [[Double?]] = []
        for _ in 0..<2 {
            let workspace = try Workspace()
            defer { workspace.cleanUp() }
            var fleet = try Self.fleet(workspace, Self.yaml(faults: "  - {at: 1m, for: 1m, action: gpsJump}"))
            fleet.advance(to: Self.start + 90_000)
            #expect(fleet.engine.slots.allSatisfy { $0.world.gpsJump?.meters == FleetAction.gpsJumpDefaultMeters })
            bearings.append(fleet.engine.slots.map { $0.world.gpsJump?.bearing })
        }
        #expect(bearings[0] == bearings[1])
        #expect(bearings[0][0] != bearings[0][1], "two devices jumped the same way")
    }

    // MARK: Reading the timeline

    @Test(
        "a bad parameter of the new actions is reported at its file, line and column, with the field, value and range",
        arguments: [
            (
                "{at: 1m, action: getCurrentLocation, params: {accuracy: best}}",
                "`params.accuracy` \"best\" is not one of its words; expected one of high, balanced, low"
            ),
            (
                "{at: 1m, action: getCurrentLocation, params: {timeoutSeconds: 601}}",
                "`params.timeoutSeconds` \"601\" is out of range; expected a number from 0 to 600 s"
            ),
            (
                "{at: 1m, action: deleteLocations, params: {before: yesterday}}",
                "`params.before` \"yesterday\" is not an instant; expected an RFC 3339 instant (years 0000 to "
                    + "9999, with its offset), such as 2026-06-15T08:00:00Z"
            ),
            (
                "{at: 1m, action: gpsJump, params: {meters: 0}}",
                "`params.meters` \"0\" is out of range; expected a number from 1 to 20000000 m"
            ),
            (
                "{at: 1m, action: gpsJump, params: {bearing: 361}}",
                "`params.bearing` \"361\" is out of range; expected a number from 0 to 360 degrees"
            ),
            (
                "{at: 1m, for: 1m, action: shutdown}",
                "`shutdown` does not last, so `for` means nothing here"
            ),
        ])
    func badParameter(fault: String, message: String) throws {
        let yaml = Self.yaml(faults: "  - " + fault)
        let line = yaml.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains(fault) }! + 1
        do throws(FleetFileProblems) {
            _ = try FleetFile.parse(yaml: yaml, file: "fleet.yaml")
            Issue.record("the timeline took \(fault)")
        } catch {
            #expect(error.problems.count == 1, "\(error)")
            let problem = try #require(error.problems.first)
            #expect(problem.file == "fleet.yaml" && problem.line == line, "\(problem)")
            #expect(problem.description.hasPrefix("fleet.yaml:\(line):"), "\(problem)")
            #expect(problem.description.contains("error: " + message), "\(problem)")
        }
    }

    @Test(
        "the new actions read with their defaults: the SDK's 15 s and high accuracy, every fix, a 50 km jump",
        arguments: [
            (
                "{at: 1m, action: getCurrentLocation}",
                FleetAction.getCurrentLocation(timeoutMillis: 15_000, accuracy: .high)
            ),
            (
                "{at: 1m, action: getCurrentLocation, params: {timeoutSeconds: 2.5, accuracy: balanced}}",
                .getCurrentLocation(timeoutMillis: 2_500, accuracy: .balanced)
            ),
            ("{at: 1m, action: deleteLocations}", .deleteLocations(before: nil)),
            (
                "{at: 1m, action: deleteLocations, params: {before: \"2026-06-15T10:00:00+02:00\"}}",
                .deleteLocations(before: start)
            ),
            // A bound: any RFC 3339 instant, one before 1970 before every fix.
            (
                "{at: 1m, action: deleteLocations, params: {before: \"1463-12-27T17:57:49+23:57\"}}",
                .deleteLocations(before: -15_968_296_751_000)
            ),
            ("{at: 1m, action: shutdown}", .shutdown),
            ("{at: 1m, for: 2m, action: gpsJump}", .gpsJump(meters: 50_000, bearing: nil, forMillis: nil)),
            (
                "{at: 1m, action: gpsJump, params: {meters: 800, bearing: 0, forSeconds: 5}}",
                .gpsJump(meters: 800, bearing: 0, forMillis: 5_000)
            ),
        ])
    func defaults(fault: String, action: FleetAction) throws {
        let file = try FleetFile.parse(yaml: Self.yaml(faults: "  - " + fault), file: "fleet.yaml")
        #expect(file.faults.first?.action == action)
    }
}
