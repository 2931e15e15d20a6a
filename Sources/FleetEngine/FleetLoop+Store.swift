import BeekonDevice
import BeekonStore

extension FleetLoop {
    /// Counts a store failure by cause, logs it (rate-limited), and puts the device into
    /// `storeError` with a retry on the virtual clock; the SDK's own state is left as it is.
    mutating func reportStoreError(
        _ error: StoreError, slot: Int, at time: Int64, resume: StoreProblem.Resume? = nil
    ) {
        metrics.storeErrorsByCause[error.kind.rawValue, default: 0] += 1
        if let line = storage.errorLog.report(error, device: slots[slot].id, realNanos: clock.realNow) {
            effects.append(.log(FleetLogLine(.error, line)))
        }
        if var problem = slots[slot].storage.problem {
            problem.cause = error.kind
            problem.message = error.message
            problem.resume = resume ?? problem.resume
            slots[slot].storage.problem = problem
            noteChange(slot)
            return
        }
        let problem = StoreProblem(cause: error.kind, message: error.message, since: time, resume: resume)
        slots[slot].storage.problem = problem
        noteChange(slot)
        slots[slot].recent.stateHistory.append(StateChange(at: time, state: .storeError))
        schedule.timers.schedule((), key: .storeRetry(slot), at: time + problem.retryDelayMillis)
    }

    /// The store wrote again: the device leaves `storeError` and lists its SDK state.
    mutating func storeRecovered(_ slot: Int, at time: Int64) {
        guard slots[slot].storage.problem != nil else { return }
        slots[slot].storage.problem = nil
        noteChange(slot)
        schedule.timers.cancel(.storeRetry(slot))
        slots[slot].recent.stateHistory.append(StateChange(at: time, state: slots[slot].listedState))
    }

    /// The retry timer: deletes what the server acknowledged and checks the store can write;
    /// on success the device resumes (and spawns or relaunches if the failure stopped that),
    /// otherwise the next retry waits longer.
    mutating func retryStore(_ slot: Int, at time: Int64) {
        guard var problem = slots[slot].storage.problem, !slots[slot].removed else { return }
        perform(commitRows(slot), slot: slot, at: time)
        do throws(StoreError) {
            try slots[slot].storage.store.checkWritable()
        } catch {
            problem.cause = error.kind
            problem.message = error.message
            problem.failedRetries += 1
            slots[slot].storage.problem = problem
            noteChange(slot)
            schedule.timers.schedule((), key: .storeRetry(slot), at: time + problem.retryDelayMillis)
            return
        }
        storeRecovered(slot, at: time)
        settleLedger(slot, at: time)
        switch problem.resume {
        case .spawn:
            spawn(slot, at: time)
        case .relaunch(let cause):
            relaunch(slot, cause: cause, at: time)
        case nil:
            break
        }
    }
}

// MARK: Rows that share a commit

extension FleetLoop {
    /// A row the device stores. The SDK commits each as it comes; at warp a device stores many
    /// in one turn, so the row waits for the turn's end to share one commit with the others,
    /// when that commit cannot answer otherwise than theirs one by one would: the store knows its
    /// counts, nothing would be pruned, no loss waits to be written, and the store is not
    /// failing. Otherwise it is written at once, after those waiting. A waiting row is committed
    /// before the device's next store call (`perform`), and before the turn's effects leave or
    /// the fleet is published (`commitWaitingRows`): nothing the turn sends or shows comes before
    /// the rows it follows are in their store.
    mutating func keep(_ row: StoreRow, slot: Int, at time: Int64) -> [DeviceAction] {
        let waiting = storage.commits.count(slot)
        let oldest = min(storage.commits.oldest(slot), row.timestamp)
        guard slots[slot].storage.problem == nil,
            slots[slot].storage.store.storesWithoutRetention(
                count: waiting + 1, oldest: oldest, now: deviceNow(slot, at: time))
        else {
            return commitRows(slot) + write(row, slot: slot, at: time)
        }
        storage.commits.add(row, slot: slot, at: time)
        return []
    }

    /// Commits device `slot`'s waiting rows as one, and counts each in the run's history at its
    /// own instant, as if written then. Should the commit fail, they are written one by one, as
    /// the SDK would have: a row that fails is lost and the device told, at the latest instant
    /// it acted. Returns what the device is to be told.
    mutating func commitRows(_ slot: Int) -> [DeviceAction] {
        guard let (rows, instants) = storage.commits.take(slot), let last = instants.last else { return [] }
        // The accounts start from the store as it was before these rows, if they never read it.
        if slots[slot].storage.ledger == nil { settleLedger(slot, at: last) }
        do throws(StoreError) {
            // Retention ages rows by the phone's clock, as the SDK's store does.
            try slots[slot].storage.store.insert(rows, now: deviceNow(slot, at: last))
        } catch {
            let told = slots[slot].storage.actedAt
            return rows.flatMap { write($0, slot: slot, at: told) }
        }
        for (row, at) in zip(rows, instants) {
            switch row {
            case .fix:
                metrics.history.recordLedgerChange(admitted: 1, acknowledged: 0, pending: 1, at: at)
                notePendingChange(1, at: at)
            case .event:
                metrics.geofenceEvents += 1
            }
        }
        // The ledger moved by the rows just counted: the totals follow, the history has them.
        settleLedger(slot, at: last, recordingHistory: false)
        return []
    }

    /// Commits every device's waiting rows (see `keep(_:slot:at:)`).
    package mutating func commitWaitingRows() {
        guard !storage.commits.isEmpty else { return }
        for slot in storage.commits.takeSlots() where storage.commits.count(slot) > 0 {
            let told = commitRows(slot)
            if !told.isEmpty { perform(told, slot: slot, at: slots[slot].storage.actedAt) }
        }
    }

    /// Writes one row at once, as the SDK does: a failure loses it (counted by cause, the device
    /// told), a fix stored after a failure ends the store's trouble, and what retention pruned
    /// with it is told.
    private mutating func write(_ row: StoreRow, slot: Int, at time: Int64) -> [DeviceAction] {
        let store = slots[slot].storage.store
        let expired = store.ledger?.expired ?? 0
        do throws(StoreError) {
            try store.insert([row], now: deviceNow(slot, at: time))
        } catch {
            return storeFailed(error, doing: row.action, slot: slot, at: time)
        }
        switch row {
        case .fix:
            if slots[slot].storage.problem != nil { storeRecovered(slot, at: time) }
        case .event:
            metrics.geofenceEvents += 1
        }
        return expiredByRetention(since: expired, slot: slot, at: time)
    }
}

extension StoreRow {
    /// The device's action that stores it.
    var action: DeviceAction {
        switch self {
        case .fix(let fix, let session): .persistFix(fix, sessionID: session)
        case .event(let event, let session): .persistGeofenceEvent(event, sessionID: session)
        }
    }
}

extension DeviceAction {
    /// Whether carrying it out asks the store for something (other than keeping a row).
    var usesStore: Bool {
        switch self {
        case .persistState, .deleteLocations, .loadBatch, .acknowledgeBatch, .dropBatch: true
        default: false
        }
    }
}
