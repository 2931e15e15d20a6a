import BeekonStore

extension FleetLoop {
    /// Brings the fleet's accounts up to the device's store ledger: what changed since the last
    /// reading is added to the fleet's and its group's, and a store read for the first time
    /// carries over what it holds. Cheap when nothing changed (a comparison of seven counts).
    /// `recordingHistory` false: the caller put the change in the run's history already (rows
    /// that shared a commit, each counted at its own instant).
    mutating func settleLedger(_ slot: Int, at time: Int64, recordingHistory: Bool = true) {
        guard let now = slots[slot].storage.store.ledger else { return }
        let group = slots[slot].group
        let pendingChange: Int
        let carried = slots[slot].storage.ledger == nil
        if let before = slots[slot].storage.ledger {
            guard now != before else { return }
            let change = now - before
            metrics.fixes.add(change)
            metrics.fixesByGroup[group].add(change)
            if recordingHistory {
                metrics.history.recordLedgerChange(
                    admitted: change.admitted, acknowledged: change.acknowledged, pending: change.pending, at: time)
            }
            pendingChange = change.pending
        } else {
            metrics.fixes.carry(now)
            metrics.fixesByGroup[group].carry(now)
            metrics.history.recordLedgerChange(admitted: 0, acknowledged: 0, pending: now.pending, at: time)
            pendingChange = now.pending
        }
        slots[slot].storage.ledger = now
        noteChange(slot)
        // (Rows committed together were each noted at their own instant by the caller.)
        if recordingHistory || carried { notePendingChange(pendingChange, at: time) }
    }

    /// The backlog changed by `change` at virtual instant `time` (for the drains).
    mutating func notePendingChange(_ change: Int, at time: Int64) {
        faults.drains.note(change, at: time)
    }

    /// Settles the backlog's changes before `instant` (see `DrainMeter.settle`), once every
    /// device has reached it; the rows admitted before it and waiting for their commit count too.
    mutating func settleBacklog(before instant: Int64) {
        guard faults.drains.needsSettling(before: instant) else { return }
        commitWaitingRows()
        faults.drains.settle(before: instant, drains: &metrics.drains)
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

    /// Starts measuring drains for a fault the API begins, when the timeline had none: at a
    /// command's instant, which every device stands at (`readyForCommands`), the fleet's pending
    /// fixes once the waiting rows are in are the backlog up to it.
    mutating func measureDrains(at time: Int64) {
        guard !faults.drains.measuring else { return }
        commitWaitingRows()
        faults.drains.start(at: time, pendingNow: metrics.fixes.ledger.pending)
    }

    /// A fault its opposite ends began (the timeline's or the API's): the backlog then is what
    /// its drain returns to.
    mutating func noteFaultBegan(_ number: Int, at time: Int64) {
        settleBacklog(before: time)
        faults.drains.faultBegan(number, at: time)
    }

    /// Such a fault ended (its `for`, or the API): its drain is timed from here, and the run's
    /// timeline says when it ended. The backlogs are as of the instants themselves
    /// (`settleBacklog`), whatever devices ahead of them had done.
    mutating func noteFaultEnded(_ number: Int, at time: Int64) {
        guard faults.isUnderway(number), case (let fault, let source)? = faultEntry(number) else { return }
        settleBacklog(before: time)
        faults.drains.faultEnded(number, at: time, source: source, action: fault.action.name, drains: &metrics.drains)
        if let ran = metrics.timeline.lastIndex(where: { $0.fault == number }) { metrics.timeline[ran].endsAt = time }
    }
}
