import BeekonDevice
import FleetTestSupport
import Foundation
import Testing

@testable import FleetEngine
@testable import FleetRuntime

/// The world a device added by the admin API meets: the lasting actions that would have picked
/// it, replayed in order, on the simulated driver.
@Suite("Fleet engine: the world of devices added later")
struct FleetLoopWorldTests {
    static let start = Workspace.start

    /// A fleet over `walkers` (`count` devices) and `others` (one), local-only, all spawning at
    /// the start, in a data folder of its own.
    static func fleet(
        _ workspace: Workspace, walkers count: Int, faults: String = ""
    ) throws -> SimulatedFleet {
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
        return try workspace.simulated(
            text + faults, ingest: SimulatedIngest(), dataDirectory: workspace.data + "-\(UUID().uuidString)")
    }

    @Test(
        """
        a fraction fault picks a device the admin API adds after it began \
        exactly as if the device had been in the file, and its end restores it
        """,
        arguments: [0.3, 0.5, 0.8])
    func fractionPicksLaterDevicesAsIfThere(fraction: Double) throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        // The fraction fault second, so its place in the timeline, not the first, seeds its draws.
        let faults = """
            faults:
              - {at: 0s, select: all, action: sync}
              - {at: 0s, for: 2m, select: {fraction: \(fraction)}, action: networkOffline}

            """
        // 13 devices either way: all from the file, or 2 from the file and 11 added once the fault began.
        var whole = try Self.fleet(workspace, walkers: 12, faults: faults)
        var grown = try Self.fleet(workspace, walkers: 1, faults: faults)
        whole.advance(to: Self.start)
        grown.advance(to: Self.start)
        _ = try grown.command { (engine) throws(FleetControlError) in
            try engine.spawn(SpawnRequest(template: .group("walkers"), count: 11))
        }
        let offline = { (fleet: SimulatedFleet) in Set(fleet.engine.slots.filter { !$0.os.online }.map(\.id)) }
        let wholeOffline = offline(whole)
        let grownOffline = offline(grown)
        #expect(
            !grownOffline.isEmpty && grownOffline.count < 13,
            "a share of \(fraction) picked \(grownOffline.count) of 13")
        // A device's draw is its own (its group and place there), whenever it was made: `others`
        // is made second in `grown`, and each device is picked in both fleets or in neither.
        #expect(grownOffline == wholeOffline)
        // The fault's end, 2 min in, restores the devices added later as well.
        grown.advance(to: Self.start + 120_000 - 1)
        #expect(offline(grown) == grownOffline)
        grown.advance(to: Self.start + 120_000)
        #expect(offline(grown).isEmpty)
    }

    @Test(
        """
        a later device meets lasting admin actions on all or its group in the order \
        they ran, until undone; a kill's relaunch is the same instant for all
        """
    )
    func adminActionsHoldForLaterDevices() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        var fleet = try Self.fleet(workspace, walkers: 1)
        try fleet.command { (engine) throws(FleetControlError) in
            _ = try engine.act(.revokePermission, on: .all)
            _ = try engine.act(.grantPermission, on: .group("walkers"))
            _ = try engine.act(.networkOffline, on: .group("others"))
            _ = try engine.act(.locationServicesOff, on: .ids(["walkers-0001"]))
            _ = try engine.act(.kill(relaunchAfterMillis: 60_000), on: .group("walkers"))
        }
        let spawn = { (fleet: inout SimulatedFleet, group: String) throws -> DeviceSlot in
            let ids = try fleet.command { (engine) throws(FleetControlError) in
                try engine.spawn(SpawnRequest(template: .group(group), count: 1))
            }
            fleet.advance(byMillis: 0)
            return try #require(fleet.slot(ids[0]))
        }

        fleet.advance(to: Self.start + 30_000)
        let walker = try spawn(&fleet, "walkers")
        #expect(walker.os.permissionGranted, "the grant on its group came after the revoke on all")
        #expect(walker.os.online && walker.os.locationServicesOn, "an action on others or on ids reached it")
        #expect(
            !walker.os.processAlive && walker.listedState.description == "dead",
            "spawned within the kill's minute, it is not dead")
        let other = try spawn(&fleet, "others")
        #expect(!other.os.permissionGranted && !other.os.online && other.os.processAlive)

        fleet.advance(to: Self.start + 90_000)
        // Relaunched with the devices the kill reached, a minute after it.
        for id in ["walkers-0001", walker.id] {
            let history = try #require(fleet.slot(id)).recent.stateHistory.elements
            #expect(history.first { $0.at > Self.start + 30_000 }?.at == Self.start + 60_000, "\(id): \(history)")
        }
        let late = try spawn(&fleet, "walkers")
        #expect(late.os.processAlive, "spawned after the kill's relaunch, it is dead")
        #expect(late.os.permissionGranted)

        try fleet.command { (engine) throws(FleetControlError) in
            _ = try engine.act(.grantPermission, on: .all)
            _ = try engine.act(.networkOnline, on: .all)
        }
        let undone = try spawn(&fleet, "others")
        #expect(undone.os.permissionGranted && undone.os.online)
        #expect(
            fleet.engine.roster.lasting.isEmpty,
            "undone actions and a relaunch that came are still kept: \(fleet.engine.roster.lasting)")
    }
}
