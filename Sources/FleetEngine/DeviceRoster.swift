import BeekonDevice
import FleetRoutes

/// Who the fleet's devices are and who is still to come: each device's slot by id and install
/// id, the turns of each platform its group has dealt, the routes they follow, how many devices
/// each group should have, the admin API's spawns waiting for their real-time turn, and the
/// lasting actions a device added later meets.
package struct DeviceRoster {
    /// Slot index by device id.
    package internal(set) var slotsByID: [String: Int] = [:]
    /// Install ids by device id: kept from an earlier run on the data folder, or made here.
    package internal(set) var installIDs: [String: String]
    /// The install ids reinstalls replaced, by device id, oldest first (`installs.json`): each
    /// names a store kept on disk, wiped as far as the device knows.
    package internal(set) var formerInstalls: [String: [String]]
    /// Routes by path, read by the driver.
    package internal(set) var routes: [String: Route]
    /// How many devices of each platform each group has made so far (by group index): a
    /// device's place among its group's devices of its own platform, which its model, OS release
    /// and SDK version are taken by, so each platform's list is dealt out in turn.
    private var madeByPlatform: [Int: [Platform: Int]] = [:]
    /// Device `id` (its seed `seed`) is reinstalled at `millis`: its install id becomes a new
    /// UUIDv7, and the one it had joins its former installs. Drawn from `installStream`, so a
    /// run without reinstalls draws nothing new and a device makes the same ids on every shard.
    mutating func reinstall(_ id: String, seed: UInt64, at millis: Int64) -> String {
        if let current = installIDs[id] { formerInstalls[id, default: []].append(current) }
        var rng = Self.installStream(seed: seed, install: reinstalls(of: id))
        var ids = UUIDv7Generator()
        let made = ids.next(atUnixMillis: millis, using: &rng).text
        installIDs[id] = made
        return made
    }

    /// How many times device `id` was reinstalled (on this data folder, every run).
    func reinstalls(of id: String) -> Int { formerInstalls[id]?.count ?? 0 }

    /// The SDK's seed for device `id`'s current install: the slot's own `seed` for the first,
    /// a draw of its install's stream after a reinstall (so fix and batch ids start anew).
    func installSeed(of id: String, seed: UInt64) -> UInt64 {
        let install = reinstalls(of: id)
        guard install > 0 else { return seed }
        var rng = Self.installStream(seed: seed, install: install).derived(1)
        return rng.next()
    }

    /// The stream install `install` (1 for the first reinstall) of the device with `seed` draws
    /// from: derived from the device's seed and the install's number.
    static func installStream(seed: UInt64, install: Int) -> SplitMix64 {
        SplitMix64(seed: seed).derived(0x1257_A11E_D000_0000 &+ UInt64(install))
    }

    /// How many recent uploads, state changes and stream values each device keeps (see
    /// `recentCapacity(devices:)`), set from the fleet file's device count at the start.
    var recentCapacity = 50
    /// How many devices each group should have: stages, targets, the file's counts.
    var groupTargets = GroupTargets()
    /// Devices the admin API spawned, waiting for their real-time turn (soonest first).
    var spawnQueue = SpawnQueue()
    /// Lasting actions a device the admin API adds later meets (`meetLastingActions`), oldest first.
    var lasting: [LastingAction] = []

    init(installIDs: [String: String], formerInstalls: [String: [String]] = [:], routes: [String: Route]) {
        self.installIDs = installIDs
        self.formerInstalls = formerInstalls
        self.routes = routes
    }

    /// The next place among group `group`'s devices of `platform`, counted.
    mutating func takeTurn(group: Int, platform: Platform) -> Int {
        let turn = madeByPlatform[group, default: [:]][platform, default: 0]
        madeByPlatform[group, default: [:]][platform] = turn + 1
        return turn
    }

    /// The install id of device `id`: kept from an earlier run on the same data directory, or
    /// made now (and then remembered in `devices.json`).
    mutating func installID(for id: String, at millis: Int64, rng: inout SplitMix64) -> String {
        if let known = installIDs[id] { return known }
        var ids = UUIDv7Generator()
        let made = ids.next(atUnixMillis: millis, using: &rng).text
        installIDs[id] = made
        return made
    }

    /// How many recent uploads, state changes and stream values each of `devices` devices keeps:
    /// 50, or in a fleet of more than 40,000, 2,000,000 ÷ `devices` (at least 10), so that what
    /// they keep stays within a few hundred MB however large the fleet.
    static func recentCapacity(devices: Int) -> Int {
        min(50, max(10, 2_000_000 / max(devices, 1)))
    }
}

/// The roster's files on the data folder: `devices.json` (install ids) and `installs.json`
/// (the installs reinstalls replaced).
struct RosterFiles: OptionSet {
    let rawValue: UInt8
    static let installIDs = RosterFiles(rawValue: 1)
    static let formerInstalls = RosterFiles(rawValue: 2)
}
