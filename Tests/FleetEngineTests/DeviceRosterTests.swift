import BeekonDevice
import BeekonStore
import FleetRoutes
import Testing

@testable import FleetEngine

/// The roster's install ids across reinstalls, the churn's draws and the account's new term,
/// pure: no store, no driver.
@Suite("Installs: the roster's reinstalls, the churn's draws, the uninstalled fixes")
struct DeviceRosterTests {
    static let instant: Int64 = 1_781_510_400_000

    @Test(
        "a reinstall makes a new UUIDv7 of its instant and keeps the ids it replaced, oldest first",
        arguments: [UInt64(1), 7, 0xDEAD_BEEF])
    func reinstall(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        var roster = DeviceRoster(installIDs: [:], routes: [:])
        let first = roster.installID(for: "walkers-0001", at: Self.instant, rng: &rng)
        #expect(roster.installSeed(of: "walkers-0001", seed: seed) == seed, "no reinstall: the device's own seed")
        let second = roster.reinstall("walkers-0001", seed: seed, at: Self.instant + 60_000)
        let third = roster.reinstall("walkers-0001", seed: seed, at: Self.instant + 120_000)
        #expect(Set([first, second, third]).count == 3)
        #expect(roster.installIDs["walkers-0001"] == third)
        #expect(roster.formerInstalls["walkers-0001"] == [first, second])
        #expect(roster.reinstalls(of: "walkers-0001") == 2)
        let id = try #require(UUIDv7(third))
        #expect(Int64(id.high >> 16) == Self.instant + 120_000)
        #expect(roster.installSeed(of: "walkers-0001", seed: seed) != seed)
        // Another roster, the same seed: the same ids (a device is the same on every shard).
        var again = DeviceRoster(installIDs: ["walkers-0001": first], routes: [:])
        #expect(again.reinstall("walkers-0001", seed: seed, at: Self.instant + 60_000) == second)
        #expect(again.reinstall("walkers-0001", seed: seed, at: Self.instant + 120_000) == third)
        // A roster resumed from installs.json goes on from its count.
        var resumed = DeviceRoster(
            installIDs: ["walkers-0001": second], formerInstalls: ["walkers-0001": [first]], routes: [:])
        #expect(resumed.reinstall("walkers-0001", seed: seed, at: Self.instant + 120_000) == third)
        // Another device's seed, other ids.
        var other = DeviceRoster(installIDs: ["walkers-0002": first], routes: [:])
        #expect(other.reinstall("walkers-0002", seed: seed &+ 1, at: Self.instant + 60_000) != second)
    }

    @Test(
        "reinstall waits are exponential at the group's rate: the mean of 20,000 draws within 3 %",
        arguments: [24.0, 1, 0.01])
    func reinstallWaits(perDay: Double) {
        var rng = SplitMix64(seed: 42)
        let draws = (0..<20_000).map { _ in FleetLoop.reinstallWait(perDay: perDay, using: &rng) }
        let mean = Double(draws.reduce(0, +)) / Double(draws.count)
        let expected = 86_400_000 / perDay
        #expect(abs(mean - expected) / expected < 0.03, "mean \(mean) ms, expected \(expected)")
        #expect(draws.allSatisfy { $0 >= 1 })
    }

    @Test("uninstalled fixes leave pending for uninstalled: the identity still balances")
    func uninstall() {
        var account = FixAccount()
        account.handedToStores = 10
        account.add(FixLedger(admitted: 10, acknowledged: 4, rejected: 0, pending: 6, expired: 0, deleted: 0, lost: 0))
        account.uninstall(6)
        #expect(account.ledger.pending == 0 && account.ledger.uninstalled == 6)
        #expect(account.ledger.unaccounted == 0 && account.unaccounted == 0)
        #expect(account.maxPending == 6)
    }
}
