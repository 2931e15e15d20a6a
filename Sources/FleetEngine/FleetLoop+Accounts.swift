import BeekonStore

extension FleetLoop {
    /// Brings the fleet's accounts up to the device's store ledger: what changed since the last
    /// reading is added to the fleet's and its group's, and a store read for the first time
    /// carries over what it holds. Cheap when nothing changed (a comparison of seven counts).
    /// `recordingHistory` false: the caller put the change in the run's history already (rows
    /// that shared a commit, each counted at its own instant).
    mutating func settleLedger(_ slot: Int, at time: Int64, recordingHistory: Bool = true) {
        guard let now = slots[slot].store.ledger else { return }
        let group = slots[slot].group
        if let before = slots[slot].ledger {
            guard now != before else { return }
            let change = now - before
            metrics.fixes.add(change)
            metrics.fixesByGroup[group].add(change)
            if recordingHistory {
                metrics.history.recordLedgerChange(
                    admitted: change.admitted, acknowledged: change.acknowledged, pending: change.pending, at: time)
            }
        } else {
            metrics.fixes.carry(now)
            metrics.fixesByGroup[group].carry(now)
            metrics.history.recordLedgerChange(admitted: 0, acknowledged: 0, pending: now.pending, at: time)
        }
        slots[slot].ledger = now
        noteChange(slot)
        if openDrains > 0 { checkDrains(at: time) }
    }

    /// Makes room for a group's accounts of fixes and uploads: at the start for the fleet file's
    /// groups, and when the admin API adds one.
    mutating func ensureGroupAccount(_ group: Int) {
        while metrics.fixesByGroup.count <= group {
            metrics.fixesByGroup.append(FixAccount())
        }
        while metrics.uploadsByGroup.count <= group {
            metrics.uploadsByGroup.append(GroupUploads())
        }
    }

    /// A fault of the timeline with an end began: the backlog then is what its drain returns to.
    mutating func noteFaultBegan(_ index: Int, at time: Int64) {
        faultsUnderway[index] = (time, metrics.fixes.ledger.pending)
    }

    /// A fault of the timeline ended: its drain is timed from here.
    mutating func noteFaultEnded(_ index: Int, at time: Int64) {
        guard let began = faultsUnderway.removeValue(forKey: index) else { return }
        let pending = metrics.fixes.ledger.pending
        metrics.drains.append(
            FaultDrain(
                fault: index, action: fleet.faults[index].action.name, startedAt: began.at, endedAt: time,
                pendingBefore: began.pending, pendingAtEnd: pending,
                drainMillis: pending <= began.pending ? 0 : nil))
        if pending > began.pending { openDrains += 1 }
    }

    /// Ends the drains whose backlog is back to where it was before their fault.
    private mutating func checkDrains(at time: Int64) {
        let pending = metrics.fixes.ledger.pending
        for index in metrics.drains.indices where metrics.drains[index].drainMillis == nil {
            if pending <= metrics.drains[index].pendingBefore {
                metrics.drains[index].drainMillis = time - metrics.drains[index].endedAt
                openDrains -= 1
            }
        }
    }
}
