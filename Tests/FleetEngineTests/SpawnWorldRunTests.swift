import BeekonDevice
import FleetTestSupport
import Foundation
import Testing

@testable import FleetDescription
@testable import FleetEngine
@testable import FleetRuntime

/// Devices spawned into a world a fault or an admin action already changed, on the simulated
/// driver: the state each starts in and the instant it leaves it are exact.
@Suite("Fleet engine: the world at spawn")
struct SpawnWorldRunTests {
    /// A lasting condition, the action that ends it, and the state a device spawned into it lists.
    struct Condition: Sendable, CustomTestStringConvertible {
        var action: FleetAction.Name
        /// Nil for `kill`: the app relaunches by itself.
        var undo: FleetAction.Name?
        var stateAtSpawn: String
        /// The devices' platform: Android for `kill`, whose WorkManager relaunches the app at the
        /// kill's end (an iOS app comes back on a significant move, see `RelaunchTests`).
        var platform = Platform.ios

        var testDescription: String { action.rawValue }
    }

    /// Where the condition comes from.
    enum Source: String, Sendable, CaseIterable {
        /// A fault in the fleet file's timeline, `{group: walkers}`, active 1m–40m; an admin
        /// spawn at 1m, once it began.
        case timeline
        /// An admin action on the group `walkers` at the start, then an admin spawn; undone at 40m.
        case admin
    }

    static let conditions = [
        Condition(action: .networkOffline, undo: .networkOnline, stateAtSpawn: "tracking"),
        Condition(action: .revokePermission, undo: .grantPermission, stateAtSpawn: "paused(permissionRevoked)"),
        Condition(action: .locationServicesOff, undo: .locationServicesOn, stateAtSpawn: "paused(locationDisabled)"),
        Condition(action: .kill, undo: nil, stateAtSpawn: "dead", platform: .android),
    ]

    static let start = Workspace.start
    static let minute = Workspace.minute
    /// When the condition ends (the fault's end, the undo, the kill's relaunch).
    static let endAt = start + 40 * minute

    /// `walkers` (the selected group, on `platform`) and `others` (a control, iOS), one device
    /// each, spawning at 20m.
    static func yaml(faults: String, platform: Platform) -> String {
        var text = """
            name: spawn-world
            seed: 11
            clock: {start: 2026-06-15T08:00:00Z, warp: 3000}
            groups:

            """
        for (name, platform) in [("walkers", platform), ("others", .ios)] {
            text += """
                  - name: \(name)
                    count: 1
                    start: 20m
                    platform: \(platform.rawValue)
                    route: walk.csv
                    pace: walk
                    config:
                      preset: precision
                      whenStationary: keepTracking
                      sync: {syncThreshold: 5, intervalSeconds: 60}

                """
        }
        return text + faults
    }

    @Test(
        """
        a device spawned while its group is offline, revoked, location-off or killed starts in that state, \
        keeps it and sends nothing until the condition ends at 40 min, then delivers its fixes and tracks
        """,
        arguments: conditions, Source.allCases)
    func spawnsIntoTheWorld(condition: Condition, source: Source) throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let faults =
            source == .timeline
            ? "faults:\n  - {at: 1m, for: 39m, select: {group: walkers}, action: \(condition.action.rawValue)}\n" : ""
        let ingest = SimulatedIngest()
        var fleet = try workspace.simulated(Self.yaml(faults: faults, platform: condition.platform), ingest: ingest)
        let walkers = FaultSelector.group("walkers")
        let spawnOne = SpawnRequest(template: .group("walkers"), count: 1)
        var spawned: [String] = []
        switch source {
        case .admin:
            try fleet.command { (engine) throws(FleetControlError) in
                // A kill's relaunch comes at the condition's end; the others take no parameter.
                let action = FleetAction(condition.action, ["relaunchAfterSeconds": .millis(40 * Self.minute)])
                _ = try engine.act(action!, on: walkers)
                spawned = try engine.spawn(spawnOne)
            }
            fleet.advance(to: Self.endAt)
            if let undo = condition.undo {
                _ = try fleet.command { (engine) throws(FleetControlError) in
                    try engine.act(FleetAction(undo, [:])!, on: walkers)
                }
            }
        case .timeline:
            fleet.advance(to: Self.start + Self.minute)
            // A device that did not exist when the fault began.
            spawned = try fleet.command { (engine) throws(FleetControlError) in try engine.spawn(spawnOne) }
        }
        fleet.advance(to: Self.start + 60 * Self.minute)
        #expect(spawned == ["walkers-0002"])
        let spawnedAt = [
            "walkers-0001": Self.start + 20 * Self.minute,
            "walkers-0002": source == .admin ? Self.start : Self.start + Self.minute,
        ]

        for slot in fleet.engine.slots {
            let history = slot.recent.stateHistory.elements
            let sentAt = ingest.uploads(of: slot.id).map(\.request.sentAt)
            #expect(
                slot.listedState.description == "tracking" && slot.os.processAlive,
                "\(slot.id) does not track at the end")
            guard let expected = spawnedAt[slot.id] else {
                #expect(slot.id == "others-0001")
                #expect(history.first == StateChange(at: Self.start + 20 * Self.minute, state: .sdk(.starting)))
                #expect(
                    history.last { $0.at == history.first?.at }?.state.description == "tracking",
                    "\(slot.id), not selected, did not start tracking")
                #expect(
                    sentAt.first == Self.start + 21 * Self.minute,
                    "\(slot.id), not selected, did not upload at its interval")
                continue
            }
            #expect(
                history.first?.at == expected, "\(slot.id) spawned at \(history.first.map { $0.at - Self.start } ?? -1)"
            )
            #expect(
                history.last { $0.at == expected }?.state.description == condition.stateAtSpawn,
                "\(slot.id) at spawn: \(history)")
            #expect(!sentAt.isEmpty, "\(slot.id) never uploaded")
            #expect(sentAt.allSatisfy { $0 >= Self.endAt }, "\(slot.id) sent a request before the condition ended")
            if condition.action != .networkOffline {
                // Nothing changes until the condition ends, and then at once.
                #expect(
                    history.first { $0.at > expected }?.at == Self.endAt,
                    "\(slot.id) left \(condition.stateAtSpawn) at another instant: \(history)")
            } else {
                // Offline, it tracks as ever; back online, it uploads at once what it stored meanwhile.
                #expect(history.allSatisfy { $0.at == expected }, "\(slot.id) changed state: \(history)")
                #expect(sentAt.first == Self.endAt)
                let fixTimes = ingest.uploads(of: slot.id).filter(\.accepted).flatMap(\.timestamps)
                #expect(
                    fixTimes.contains { $0 >= expected && $0 < Self.endAt },
                    "\(slot.id)'s fixes from while it was offline never arrived")
            }
        }
        #expect(fleet.engine.slots.map(\.id).sorted() == ["others-0001", "walkers-0001", "walkers-0002"])
    }
}
