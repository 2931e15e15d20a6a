import BeekonDevice
import Foundation
import Synchronization
import Testing

@testable import FleetKit

/// Devices spawned into a world a fault or an admin action already changed: a real small fleet
/// against the loopback ingest server.
@Suite("Fleet runtime: the world at spawn", .serialized)
struct SpawnWorldRunTests {
    /// A lasting condition, the action that ends it, and the state a device spawned into it lists.
    struct Condition: Sendable, CustomTestStringConvertible {
        var action: FaultAction
        /// Nil for `kill`: the app relaunches by itself.
        var undo: FaultAction?
        var stateAtSpawn: String
        /// The devices' platform: Android for `kill`, whose WorkManager relaunches the app at the
        /// kill's end (an iOS app comes back on a significant move, see `RelaunchTests`).
        var platform = Platform.ios

        var testDescription: String { action.rawValue }
    }

    /// Where the condition comes from.
    enum Source: String, Sendable, CaseIterable {
        /// A fault in the fleet file's timeline, `{group: walkers}`, active 1m–40m.
        case timeline
        /// An admin action on the group `walkers` at the start, undone at 40m.
        case admin
    }

    static let conditions = [
        Condition(action: .networkOffline, undo: .networkOnline, stateAtSpawn: "tracking"),
        Condition(action: .revokePermission, undo: .grantPermission, stateAtSpawn: "paused(permissionRevoked)"),
        Condition(action: .locationServicesOff, undo: .locationServicesOn, stateAtSpawn: "paused(locationDisabled)"),
        Condition(action: .kill, undo: nil, stateAtSpawn: "dead", platform: .android),
    ]

    static let start: Int64 = 1_781_510_400_000
    /// When the condition ends (the fault's end, the undo, the kill's relaunch).
    static let endAfter: Int64 = 40 * 60_000

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

    /// Runs `body` on the loop between turns until it answers non-nil (at most a real minute;
    /// nil then). Polls off the cooperative pool (see `offPool`).
    static func onLoopOnce<Answer: Sendable>(
        _ runtime: FleetRuntime, _ body: @escaping @Sendable (inout FleetLoop) -> Answer?
    ) async throws -> Answer {
        let answer = try await offPool { () throws -> Answer? in
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline {
                if let answer = try StoreFailureRunTests.onLoop(runtime, body) { return answer }
                Thread.sleep(forTimeInterval: 0.005)
            }
            return nil
        }
        return try #require(answer, "the loop never reached the command's moment")
    }

    @Test(
        "a device spawned while its group is offline, revoked, location-off or killed starts in that state, sends nothing until it ends, then delivers its fixes and tracks",
        arguments: conditions, Source.allCases)
    func spawnsIntoTheWorld(condition: Condition, source: Source) async throws {
        let workspace = try FleetRuntimeTests.Workspace()
        defer { workspace.cleanUp() }
        let server = try IngestTestServer()
        defer { server.stop() }
        let faults =
            source == .timeline
            ? "faults:\n  - {at: 1m, for: 39m, select: {group: walkers}, action: \(condition.action.rawValue)}\n" : ""
        let runtime = try FleetRuntime(
            fleet: try workspace.fleet(Self.yaml(faults: faults, platform: condition.platform)),
            options: RunOptions(
                dataDirectory: workspace.data, ingest: server.url, realDurationMillis: 120_000,
                virtualDurationMillis: 60 * 60_000, routeFolder: workspace.folder.path))
        let walkers = FaultSelector.group("walkers")
        let spawnOne = SpawnRequest(template: .group("walkers"), count: 1)
        if source == .admin {
            // Queued before the run: they run on its first turn, before any device spawns.
            var params = FaultParams()
            params.relaunchAfterMillis = Self.endAfter
            runtime.apply(condition.action, params: params, to: walkers) { _ in }
            runtime.spawn(spawnOne) { _ in }
        }
        let finished = runtime.runOnThread()
        defer { runtime.stop() }

        if source == .timeline {
            // An admin spawn while the fault is on: a device that did not exist when it began.
            let ids = try await Self.onLoopOnce(runtime) { loop -> [String]? in
                guard loop.actionLog.elements.contains(where: { $0.source == .timeline }) else { return nil }
                return try? loop.spawn(spawnOne)
            }
            #expect(ids == ["walkers-0002"])
        }
        var endAt = Self.start + Self.endAfter
        if source == .admin, let undo = condition.undo {
            endAt = try await Self.onLoopOnce(runtime) { loop -> Int64? in
                guard loop.metrics.virtualNow >= Self.start + Self.endAfter else { return nil }
                _ = try? loop.act(undo, params: FaultParams(), on: walkers)
                return loop.metrics.virtualNow
            }
        }
        #expect(try await offPool { finished.wait(timeout: .now() + 120) } == .success)

        let snapshot = runtime.snapshot
        let uploads = server.snapshot.uploads
        for device in snapshot.listed {
            let history = device.stateHistory
            let spawnedAt = try #require(history.first?.at, "\(device.id) never spawned")
            let atSpawn = history.last { $0.at == spawnedAt }?.state
            let sentAt = uploads.filter { $0.installID == device.installID }.compactMap {
                Timestamp.unixMillis(parsing: $0.sentAt)
            }
            #expect(device.state == "tracking" && device.alive, "\(device.id) does not track at the end")
            guard device.group == "walkers" else {
                #expect(atSpawn == "tracking", "\(device.id), not selected, did not start tracking")
                #expect(sentAt.contains { $0 < endAt }, "\(device.id), not selected, sent nothing before \(endAt)")
                continue
            }
            #expect(spawnedAt < endAt)
            #expect(atSpawn == condition.stateAtSpawn, "\(device.id) at spawn")
            #expect(
                history.allSatisfy { $0.at == spawnedAt || $0.at >= endAt },
                "\(device.id) left \(condition.stateAtSpawn) before the condition ended: \(history)")
            #expect(!sentAt.isEmpty, "\(device.id) never uploaded")
            #expect(sentAt.allSatisfy { $0 >= endAt }, "\(device.id) sent a request before \(endAt)")
            if condition.action == .networkOffline {
                let fixTimes = uploads.filter { $0.installID == device.installID && $0.accepted }
                    .flatMap(\.timestamps).compactMap { Timestamp.unixMillis(parsing: $0) }
                #expect(
                    fixTimes.contains { $0 >= spawnedAt && $0 < endAt },
                    "\(device.id)'s fixes from while it was offline never arrived")
            }
        }
        #expect(snapshot.listed.map(\.id).sorted() == ["others-0001", "walkers-0001", "walkers-0002"])
    }
}
