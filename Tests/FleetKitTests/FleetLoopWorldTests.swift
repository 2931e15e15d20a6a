import BeekonDevice
import Foundation
import Testing

@testable import FleetKit

/// The world a device added by the admin API meets: the lasting actions that would have picked
/// it, replayed on a loop that is not running (no clock, no network).
@Suite("Fleet loop: the world of devices added later", .serialized)
struct FleetLoopWorldTests {
    /// A started loop over `walkers` (`count` devices) and `others` (one), local-only.
    static func loop(
        _ workspace: FleetRuntimeTests.Workspace, walkers count: Int, faults: String = ""
    ) throws -> FleetLoop {
        var text = """
            name: world
            seed: 5
            clock: {start: 2026-06-15T08:00:00Z}
            groups:

            """
        for (name, devices) in [("walkers", count), ("others", 1)] {
            text += """
                  - name: \(name)
                    count: \(devices)
                    route: walk.csv
                    config: {sync: false}

                """
        }
        var loop = try FleetLoop(
            fleet: try workspace.fleet(text + faults),
            options: RunOptions(
                dataDirectory: workspace.data + "-\(UUID().uuidString)", routeFolder: workspace.folder.path))
        loop.start(wallNow: 1_781_510_400_000)
        return loop
    }

    @Test(
        "a fraction fault picks a device the admin API adds after it began exactly as if the device had been in the file",
        arguments: [0.3, 0.5, 0.8])
    func fractionPicksLaterDevicesByTheirPlace(fraction: Double) throws {
        let workspace = try FleetRuntimeTests.Workspace()
        defer { workspace.cleanUp() }
        // The fraction fault second, so its place in the timeline, not the first, seeds its draws.
        let faults = """
            faults:
              - {at: 0s, select: all, action: sync}
              - {at: 0s, for: 1h, select: {fraction: \(fraction)}, action: networkOffline}

            """
        // 13 devices either way: all from the file, or 2 from the file and 11 added after the fault began.
        var whole = try Self.loop(workspace, walkers: 12, faults: faults)
        var grown = try Self.loop(workspace, walkers: 1, faults: faults)
        whole.applyFault(1, at: whole.metrics.virtualNow)
        grown.applyFault(1, at: grown.metrics.virtualNow)
        _ = try grown.spawn(SpawnRequest(template: .group("walkers"), count: 11))
        let offline = { (loop: FleetLoop) in Set(loop.slots.filter { !$0.online }.map(\.id)) }
        let wholeOffline = offline(whole)
        let grownOffline = offline(grown)
        #expect(
            !grownOffline.isEmpty && grownOffline.count < 13, "a share of \(fraction) picked \(grownOffline.count) of 13")
        // `others` is made second in `grown`, so compare places, not ids: the n-th device made is
        // picked in both fleets or in neither.
        let byPlace = { (loop: FleetLoop, ids: Set<String>) in
            loop.slots.indices.filter { ids.contains(loop.slots[$0].id) }
        }
        #expect(byPlace(grown, grownOffline) == byPlace(whole, wholeOffline))
        // The end restores the devices added later as well.
        grown.endFault(1, at: grown.metrics.virtualNow + 3_600_000)
        #expect(offline(grown).isEmpty)
    }

    @Test("a later device meets lasting admin actions on all or its group in the order they ran, until undone")
    func adminActionsHoldForLaterDevices() throws {
        let workspace = try FleetRuntimeTests.Workspace()
        defer { workspace.cleanUp() }
        var loop = try Self.loop(workspace, walkers: 1)
        _ = try loop.act(.revokePermission, params: FaultParams(), on: .all)
        _ = try loop.act(.grantPermission, params: FaultParams(), on: .group("walkers"))
        _ = try loop.act(.networkOffline, params: FaultParams(), on: .group("others"))
        _ = try loop.act(.locationServicesOff, params: FaultParams(), on: .ids(["walkers-0001"]))
        var relaunchSoon = FaultParams()
        relaunchSoon.relaunchAfterMillis = 60_000
        _ = try loop.act(.kill, params: relaunchSoon, on: .group("walkers"))
        loop.metrics.virtualNow += 30_000
        let during = try loop.spawn(SpawnRequest(template: .group("walkers"), count: 1))
        let other = try loop.spawn(SpawnRequest(template: .group("others"), count: 1))
        loop.metrics.virtualNow += 60_000
        let after = try loop.spawn(SpawnRequest(template: .group("walkers"), count: 1))
        func slot(_ ids: [String]) throws -> DeviceSlot { loop.slots[try #require(loop.slotsByID[ids[0]])] }

        let walker = try slot(during)
        #expect(walker.permissionGranted, "the grant on its group came after the revoke on all")
        #expect(walker.online && walker.locationServicesOn, "an action on others or on ids reached it")
        #expect(!walker.processAlive, "spawned within the kill's minute, it is not dead")
        let otherSlot = try slot(other)
        #expect(!otherSlot.permissionGranted && !otherSlot.online && otherSlot.processAlive)
        let late = try slot(after)
        #expect(late.processAlive, "spawned after the kill's relaunch, it is dead")
        #expect(late.permissionGranted)

        _ = try loop.act(.grantPermission, params: FaultParams(), on: .all)
        _ = try loop.act(.networkOnline, params: FaultParams(), on: .all)
        let undone = try slot(try loop.spawn(SpawnRequest(template: .group("others"), count: 1)))
        #expect(undone.permissionGranted && undone.online)
        #expect(loop.lasting.allSatisfy { $0.kind == .process }, "undone actions are still kept: \(loop.lasting)")
    }
}
