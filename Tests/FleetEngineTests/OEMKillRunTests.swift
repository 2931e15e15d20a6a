import BeekonDevice
import FleetDescription
import FleetTestSupport
import Foundation
import Testing

@testable import FleetEngine
@testable import FleetRuntime

/// A group's `oemKills:` and the `oemKills` action on the simulated driver: each Android phone's
/// battery manager kills its app at its maker's rate, at instants drawn from the phone's own
/// stream, and WorkManager brings it back 60 s later.
@Suite("OEM kills on virtual time")
struct OEMKillRunTests {
    /// The workspace fleets' `clock.start`, 2026-06-15T08:00:00Z.
    static let start: Int64 = 1_781_510_400_000

    /// 3 Android walkers, a Pixel, a Xiaomi and a Samsung, with `oemKills` (none when empty).
    static func yaml(oemKills: String, faults: String = "") -> String {
        Workspace.yaml(warp: 600).replacingOccurrences(
            of: "    platform: android\n",
            with: "    platform: android\n    model: [Pixel 8, 2311DRK48G, SM-A546B]\n"
                + (oemKills.isEmpty ? "" : "    oemKills: \(oemKills)\n")) + faults
    }

    static func fleet(_ workspace: Workspace, _ yaml: String) throws -> SimulatedFleet {
        try SimulatedFleet(
            fleet: try workspace.fleet(yaml),
            options: RunOptions(
                dataDirectory: workspace.data, ingest: "http://ingest.invalid/ingest",
                routeFolder: workspace.folder.path, transferTiming: .asAnswered),
            network: { _ in .respond(status: 200, afterMillis: 50) })
    }

    /// The kills a phone of `seed` at `perDay` suffers from `begin` until `end`, as its stream
    /// draws them: those that find its app alive (a kill within a minute of the last finds it dead).
    static func kills(seed: UInt64, perDay: Double, from begin: Int64 = start, until end: Int64) -> [Int64] {
        var draws = SplitMix64(seed: seed).derived(FleetLoop.oemKillStreamKey)
        var kills: [Int64] = []
        var time = begin + Exponential.millis(mean: 86_400_000 / perDay, using: &draws)
        while time <= end {
            if kills.last.map({ time >= $0 + ProcessOutage.defaultDelayMillis }) ?? true { kills.append(time) }
            time += Exponential.millis(mean: 86_400_000 / perDay, using: &draws)
        }
        return kills
    }

    /// The relaunch instants in a device's state history.
    static func relaunches(_ fleet: SimulatedFleet, _ id: String) throws -> [Int64] {
        var loop = fleet.engine
        loop.recordChanges()
        let device = try #require(loop.fleetSnapshot(metrics: loop.snapshot(), paused: false, realNanos: 0).device(id))
        return device.stateHistory.filter { $0.cause == .workManager }.map(\.at)
    }

    @Test("each phone's rate is its maker's: a Pixel never, a Xiaomi 3 a day, a Samsung 2; perDay gives all one")
    func rates() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let vendor = try Self.fleet(workspace, Self.yaml(oemKills: "vendor"))
        #expect(vendor.engine.slots.map(\.identity.model) == ["Pixel 8", "2311DRK48G", "SM-A546B"])
        #expect(vendor.engine.slots.map(\.os.oemKillsPerDay) == [0, 3, 2])
        let flat = try Self.fleet(workspace, Self.yaml(oemKills: "{perDay: 5}"))
        #expect(flat.engine.slots.map(\.os.oemKillsPerDay) == [5, 5, 5])
        let none = try Self.fleet(workspace, Self.yaml(oemKills: ""))
        #expect(none.engine.slots.map(\.os.oemKillsPerDay) == [0, 0, 0])
    }

    @Test(
        """
        a battery manager kills the app at the instants the phone's stream draws; each kill leaves \
        nothing stored for a minute, and WorkManager relaunches the app 60 s later
        """
    )
    func killsAndRelaunches() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        var fleet = try Self.fleet(workspace, Self.yaml(oemKills: "{perDay: 24}"))
        let end = Self.start + 6 * 3_600_000
        fleet.advance(to: end)
        var total = 0
        for slot in fleet.engine.slots {
            let kills = Self.kills(seed: slot.seed, perDay: 24, until: end)
            total += kills.count
            let back = kills.map { $0 + ProcessOutage.defaultDelayMillis }.filter { $0 <= end }
            #expect(try Self.relaunches(fleet, slot.id) == back)
            for kill in kills {
                let during = try fleet.engine.locations(of: slot.id, from: kill + 1, to: kill + 59_999, limit: 5)
                #expect(during.isEmpty, "\(slot.id) stored fixes while killed at \(kill - Self.start)")
            }
        }
        #expect(total > 6, "\(total) kills")
        #expect(fleet.engine.metrics.oemKills == total)
    }

    @Test(
        """
        an oemKills action kills at the makers' rates for its `for`, none after; a group without \
        oemKills is never killed by itself
        """
    )
    func action() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let faults = """
            faults:
              - {at: 1h, for: 6h, select: all, action: oemKills, params: {perDay: 12}}
            """
        var fleet = try Self.fleet(workspace, Self.yaml(oemKills: "", faults: faults))
        fleet.advance(to: Self.start + 3_600_000 - 1)
        #expect(fleet.engine.metrics.oemKills == 0)
        fleet.advance(to: Self.start + 7 * 3_600_000)
        let kills = fleet.engine.metrics.oemKills
        #expect(kills > 3)
        var expected = 0
        for slot in fleet.engine.slots {
            expected +=
                Self.kills(seed: slot.seed, perDay: 12, from: Self.start + 3_600_000, until: Self.start + 7 * 3_600_000)
                .count
        }
        #expect(kills == expected)
        fleet.advance(to: Self.start + 10 * 3_600_000)
        #expect(fleet.engine.metrics.oemKills == kills)
        #expect(fleet.engine.slots.allSatisfy { $0.os.oemKillsPerDay == 0 && $0.os.processAlive })
    }
}
