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
        let pendingChange: Int
        let carried = slots[slot].ledger == nil
        if let before = slots[slot].ledger {
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
        slots[slot].ledger = now
        noteChange(slot)
        // (Rows committed together were each noted at their own instant by the caller.)
        if recordingHistory || carried { notePendingChange(pendingChange, at: time) }
    }

    /// The backlog changed by `change` at virtual instant `time` (for the drains).
    mutating func notePendingChange(_ change: Int, at time: Int64) {
        guard change != 0 else { return }
        guard measuresDrains else {
            // Only what changed at the latest instant, for a drain the API may begin there.
            if time > latestPendingChange.at {
                latestPendingChange = (time, change)
            } else if time == latestPendingChange.at {
                latestPendingChange.change += change
            }
            return
        }
        if time < settledBefore {
            // Before the settled instant (a store first read late): counted at once.
            settledPending += change
        } else {
            unsettledPending.append((time, change))
            earliestUnsettled = min(earliestUnsettled, time)
        }
    }

    /// Counts the backlog's changes before `instant` in `settledPending`, in the order of their
    /// instants, ending each drain at the first instant the backlog is back to where it was.
    /// Called once every device has reached `instant` (no change before it is still to come).
    mutating func settleBacklog(before instant: Int64) {
        guard measuresDrains, instant > settledBefore else { return }
        // Fixes admitted before the instant and waiting for their commit count before it too.
        commitWaitingRows()
        settledBefore = instant
        guard earliestUnsettled < instant else { return }
        var due: [(at: Int64, change: Int)] = []
        var earliest = Int64.max
        unsettledPending.removeAll { entry in
            guard entry.at < instant else {
                earliest = min(earliest, entry.at)
                return false
            }
            due.append(entry)
            return true
        }
        earliestUnsettled = earliest
        due.sort { $0.at < $1.at }
        var index = 0
        while index < due.count {
            let at = due[index].at
            while index < due.count, due[index].at == at {
                settledPending += due[index].change
                index += 1
            }
            if openDrains > 0 { checkDrains(at: at) }
        }
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
    /// fixes once the waiting rows are in are the backlog up to it, and none after it is noted.
    mutating func measureDrains(at time: Int64) {
        guard !measuresDrains else { return }
        commitWaitingRows()
        measuresDrains = true
        // As a barrier of the timeline reads it: the backlog before the instant, its changes at
        // the instant counted once settled.
        let atInstant = latestPendingChange.at == time ? latestPendingChange.change : 0
        settledPending = metrics.fixes.ledger.pending - atInstant
        settledBefore = time
        if atInstant != 0 {
            unsettledPending = [(time, atInstant)]
            earliestUnsettled = time
        }
    }

    /// A fault its opposite ends began (the timeline's or the API's): the backlog then is what
    /// its drain returns to.
    mutating func noteFaultBegan(_ number: Int, at time: Int64) {
        settleBacklog(before: time)
        faultsUnderway[number] = (time, settledPending)
    }

    /// Such a fault ended (its `for`, or the API): its drain is timed from here, and the run's
    /// timeline says when it ended. The backlogs are as of the instants themselves
    /// (`settleBacklog`), whatever devices ahead of them had done.
    mutating func noteFaultEnded(_ number: Int, at time: Int64) {
        guard let began = faultsUnderway.removeValue(forKey: number), case (let fault, let source)? = faultEntry(number)
        else { return }
        settleBacklog(before: time)
        let pending = settledPending
        metrics.drains.append(
            FaultDrain(
                fault: number, source: source, action: fault.action.name, startedAt: began.at, endedAt: time,
                pendingBefore: began.pending, pendingAtEnd: pending,
                drainMillis: pending <= began.pending ? 0 : nil))
        if pending > began.pending { openDrains += 1 }
        if let ran = metrics.timeline.lastIndex(where: { $0.fault == number }) { metrics.timeline[ran].endsAt = time }
    }

    /// Ends the drains whose backlog is back to where it was before their fault.
    private mutating func checkDrains(at time: Int64) {
        let pending = settledPending
        for index in metrics.drains.indices where metrics.drains[index].drainMillis == nil {
            if pending <= metrics.drains[index].pendingBefore {
                metrics.drains[index].drainMillis = time - metrics.drains[index].endedAt
                openDrains -= 1
            }
        }
    }
}
