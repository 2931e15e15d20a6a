import BeekonDevice
import FleetDescription
import Foundation

extension FleetLoop {
    /// `reinstall`: the user uninstalls the app and installs it again (seed 04: uninstalling
    /// wipes the DB; seed 05: the install id is "stable per app install"). The process dies; the
    /// store's pending fixes are never sent, and the fleet's accounts count them `uninstalled`;
    /// the store is closed and kept on disk (for `verify`), and the slot gets a new install id
    /// and a new empty store. The new install does nothing until the user opens it,
    /// `openAfterMillis` later (nil: at once; not before a rebooting phone is up), when it starts
    /// as a spawned device does. A device not yet spawned has no app to reinstall.
    mutating func reinstall(_ slot: Int, openAfterMillis: Int64?, at time: Int64) {
        guard !slots[slot].removed, slots[slot].device != nil || slots[slot].os.awaitingOpen else { return }
        // A phone down for a reboot is used once it is up again.
        let openAt = max(time + max(0, openAfterMillis ?? 0), slots[slot].os.outage?.bootedAt ?? time)
        // What the app stored before it went is in the old store, and counted.
        perform(commitRows(slot), slot: slot, at: time)
        if slots[slot].os.processAlive {
            slots[slot].os.processAlive = false
            processGone(slot, at: time)
        }
        slots[slot].os.outage = nil
        schedule.timers.cancel(.relaunch(slot))
        schedule.timers.cancel(.significantMoveCheck(slot))
        schedule.timers.cancel(.storeRetry(slot))
        settleLedger(slot, at: time)
        let uninstalled = slots[slot].storage.ledger?.pending ?? 0
        if uninstalled > 0 {
            metrics.fixes.uninstall(uninstalled)
            metrics.fixesByGroup[slots[slot].group].uninstall(uninstalled)
            metrics.history.recordLedgerChange(admitted: 0, acknowledged: 0, pending: -uninstalled, at: time)
            notePendingChange(-uninstalled, at: time)
        }
        slots[slot].storage.store.close()
        let installID = roster.reinstall(slots[slot].id, seed: slots[slot].seed, at: time)
        var storage = SlotStorage(store: makeStore(installID: installID, group: slots[slot].group))
        storage.installedAtLife = slots[slot].os.life
        slots[slot].storage = storage
        slots[slot].device = nil
        slots[slot].state = .idle
        slots[slot].os.awaitingOpen = true
        noteChange(slot)
        rosterChanged.formUnion([.installIDs, .formerInstalls])
        schedule.timers.schedule((), key: .open(slot), at: openAt)
    }

    /// The user opens a reinstalled app: a new install on an empty store, configured and started
    /// as its group's devices are at their spawn.
    mutating func openInstall(_ slot: Int, at time: Int64) {
        guard slots[slot].os.awaitingOpen, !slots[slot].removed else { return }
        slots[slot].os.awaitingOpen = false
        slots[slot].os.processAlive = true
        spawn(slot, at: time)
    }

    /// `upgrade`: the app is updated to SDK `sdkVersion`. A running app's process is ended by the
    /// update and relaunched at once with the new version (`appUpdate`); its store stays, so a
    /// batch held for a retry goes again with its `batch_id` and the new `sdk_version`. A dead
    /// app reports the new version when it comes back; one not yet spawned or not yet opened,
    /// from its start. The store records the version (`sdkVersion`), so a resumed run finds it.
    mutating func upgrade(_ slot: Int, sdkVersion: String, at time: Int64) {
        guard !slots[slot].removed else { return }
        slots[slot].identity.sdkVersion = sdkVersion
        noteChange(slot)
        guard slots[slot].device != nil else { return }
        perform([.persistState([.sdkVersion(sdkVersion)])], slot: slot, at: time)
        guard slots[slot].os.processAlive else {
            slots[slot].device!.appUpdated(sdkVersion: sdkVersion)
            return
        }
        slots[slot].os.processAlive = false
        processGone(slot, at: time)
        slots[slot].device!.appUpdated(sdkVersion: sdkVersion)
        relaunch(slot, cause: .appUpdate, at: time)
    }

    // MARK: The group's churn

    /// At a device's first spawn, its group's `churn:`: its first reinstall (a Poisson process at
    /// `reinstallsPerDay`) and its upgrade's instant (uniform over `over` from `at` after the
    /// run's start), drawn from a stream derived from the device's seed, so a fleet without churn
    /// draws nothing new and a device draws the same on every shard.
    mutating func planChurn(_ slot: Int, at time: Int64) {
        guard let churn = fleet.groups[slots[slot].group].churn, slots[slot].os.churnDraws == nil else { return }
        var draws = SplitMix64(seed: slots[slot].seed).derived(Self.churnStreamKey)
        if let upgrade = churn.upgrade {
            let offset = Int64((Double.random(in: 0..<1, using: &draws) * Double(upgrade.overMillis)).rounded(.down))
            let due = clock.startMillis + upgrade.atMillis + offset
            schedule.timers.schedule((), key: .churnUpgrade(slot), at: max(due, time))
        }
        if churn.reinstallsPerDay > 0 {
            schedule.timers.schedule(
                (), key: .churnReinstall(slot),
                at: time + Self.reinstallWait(perDay: churn.reinstallsPerDay, using: &draws))
        }
        slots[slot].os.churnDraws = draws
    }

    /// A churn reinstall is due: the device is reinstalled (and opened at once) unless it stands
    /// by, deleted or not yet installed; the next one is drawn.
    mutating func churnReinstallDue(_ slot: Int, at time: Int64) {
        guard var draws = slots[slot].os.churnDraws, !slots[slot].removed,
            let perDay = fleet.groups[slots[slot].group].churn?.reinstallsPerDay, perDay > 0
        else { return }
        // (Not an action of the log: the churn is each device's own, as its relaunches are.)
        if !slots[slot].standingBy { reinstall(slot, openAfterMillis: nil, at: time) }
        schedule.timers.schedule(
            (), key: .churnReinstall(slot), at: time + Self.reinstallWait(perDay: perDay, using: &draws))
        slots[slot].os.churnDraws = draws
    }

    /// The group's upgrade reaches the device (unless it already runs that version).
    mutating func churnUpgradeDue(_ slot: Int, at time: Int64) {
        guard let update = fleet.groups[slots[slot].group].churn?.upgrade,
            slots[slot].identity.sdkVersion != update.sdkVersion
        else { return }
        upgrade(slot, sdkVersion: update.sdkVersion, at: time)
    }

    /// The key of the churn stream, derived from a device's seed.
    static let churnStreamKey: UInt64 = 0xC4_0A_2E_1257

    /// Virtual ms to a device's next reinstall at `perDay` a day: an exponential draw (at least
    /// 1 ms, at most 1,000 years).
    static func reinstallWait(perDay: Double, using rng: inout SplitMix64) -> Int64 {
        let u = Double.random(in: 0..<1, using: &rng)
        let wait = -log1p(-u) / perDay * 86_400_000
        return Int64(min(max(wait, 1), 31_557_600_000_000).rounded())
    }
}
