import BeekonDevice
import BeekonNet
import BeekonStore
import FleetRoutes

extension FleetLoop {
    /// Carries out a device's actions in order; answers that come straight from the store
    /// (a loaded batch, a delete count) are fed back before the next action.
    mutating func perform(_ actions: [DeviceAction], slot: Int, at time: Int64) {
        slots[slot].storage.actedAt = max(slots[slot].storage.actedAt, time)
        var queue = actions[...]
        while let action = queue.popFirst() {
            // The store answers from what the device stored before: its waiting rows go first.
            if action.usesStore, storage.commits.count(slot) > 0 {
                queue = commitRows(slot)[...] + [action] + queue
                continue
            }
            let followUp = carryOut(action, slot: slot, at: time)
            if !followUp.isEmpty {
                queue = followUp[...] + queue
            }
        }
        settleLedger(slot, at: time)
    }

    /// One action; returns actions that its answer led to.
    private mutating func carryOut(_ action: DeviceAction, slot: Int, at time: Int64) -> [DeviceAction] {
        let store = slots[slot].storage.store
        do throws(StoreError) {
            switch action {
            case .persistFix(let fix, let session):
                countHandedToStore(slot)
                slots[slot].world.lastPosition = (fix.latitude, fix.longitude)
                return keep(.fix(fix, sessionID: session), slot: slot, at: time)
            case .persistGeofenceEvent(let event, let session):
                return keep(.event(event, sessionID: session), slot: slot, at: time)
            case .persistState(let changes):
                for change in changes {
                    if case .config(let config) = change {
                        store.retention = .standard(syncEnabled: config.sync != nil)
                    }
                }
                try store.writeState(changes)
            case .deleteLocations(let before):
                let count = try store.deleteLocations(before: before)
                return handled(.locationsDeleted(count: count), by: slot, at: time)
            case .loadBatch(let limit, let resending):
                let batch = try store.nextBatch(limit: limit, resending: resending)
                return handled(.batchLoaded(batch), by: slot, at: time)
            case .acknowledgeBatch(let batch, let batchID):
                // Counted as acknowledged once the delete commits (the ledger); the store holds
                // back rows it could not delete, so they are not sent again. What the device was
                // told is recorded with the delete (`ToldBatch`).
                // A captive portal's 200: the rows go as for the server's, but the server has none.
                if slots[slot].waiting.portalAnswered == batchID {
                    countPortalAcknowledgement(batch, slot: slot)
                    try store.acknowledge(batch, told: (batchID, time), heard: .portalAcknowledged)
                } else {
                    recordAgeAtAcknowledgement(batch, slot: slot, at: time)
                    try store.acknowledge(batch, told: (batchID, time), heard: .acknowledged)
                }
            case .dropBatch(let batch, let batchID):
                try store.drop(batch, told: (batchID, time))
            case .sendBatch(let request):
                // The run is over: nothing new leaves (the device keeps the rows for the next run).
                guard !draining else { break }
                // Gzipped on the transport's thread: deflate is a sixth of a 1-fix upload's cost
                // on this one, which every device shares.
                startTransfer(
                    slot: slot, kind: .upload(request.payload.batchID),
                    request: OutboundRequest(
                        request.head, body: request.payload.encoded(), gzipBody: true, connectionKey: slots[slot].id,
                        sourceAddress: slots[slot].sourceAddress),
                    fixIDs: request.payload.locations.map(\.id), at: time)
            case .sendRefresh(let request):
                guard !draining else { break }
                startTransfer(
                    slot: slot, kind: .refresh,
                    request: OutboundRequest(
                        request.head, body: request.body, connectionKey: slots[slot].id,
                        sourceAddress: slots[slot].sourceAddress),
                    at: time)
            case .emitState(let state):
                slots[slot].state = state
                slots[slot].recent.stateHistory.append(StateChange(at: time, state: .sdk(state)))
            case .requestLocationUpdates(let accuracy):
                slots[slot].world.accuracy = accuracy
                if let accuracy {
                    // The first fix comes within one cadence (GPS sooner), as a real provider's.
                    schedule.timers.schedule(
                        (), key: .providerTick(slot), at: time + min(ProviderProfile.cadenceMillis(accuracy), 1000))
                } else {
                    schedule.timers.cancel(.providerTick(slot))
                }
            case .armTimer(let timer, let at):
                schedule.timers.schedule((), key: .device(slot, timer), at: trueDeadline(at, slot: slot, at: time))
            case .cancelTimer(let timer):
                schedule.timers.cancel(.device(slot, timer))
            case .emitSyncStatus(let status):
                logStream(StreamRecord(at: time, device: slots[slot].id, value: .syncStatus(status)), slot: slot)
            case .emitAuthChange(let change):
                logStream(StreamRecord(at: time, device: slots[slot].id, value: .authChange(change)), slot: slot)
            case .answerCurrentLocation(let requestID, let answer):
                currentLocationAnswered(requestID, answer, slot: slot, at: time)
            case .emitLocation, .emitGeofenceEvent:
                break
            case .refuseCall(let call, let reason):
                effects.append(.log(FleetLogLine(.warning, "device \(slots[slot].id): \(call) refused: \(reason)")))
            }
        } catch {
            return storeFailed(error, doing: action, slot: slot, at: time)
        }
        return []
    }

    /// A store failure while carrying out `action`: reported (see `reportStoreError`), a row that
    /// was not stored counted as lost by cause (and taken off the SDK's pending count), and a batch
    /// that could not be read ends the drain as an empty one does (the SDK's pending count kept),
    /// so the next interval or trigger tries again.
    mutating func storeFailed(
        _ error: StoreError, doing action: DeviceAction, slot: Int, at time: Int64
    ) -> [DeviceAction] {
        reportStoreError(error, slot: slot, at: time)
        switch action {
        case .persistFix:
            metrics.fixesLostByCause[error.kind.rawValue, default: 0] += 1
            slots[slot].storage.store.noteLostFix()
            // The SDK counted the fix as pending when it asked for the insert; it is not in the
            // store, as if deleted, so its count (and the fleet's `pending`) stays true.
            return handled(.locationsDeleted(count: 1), by: slot, at: time)
        case .persistGeofenceEvent:
            metrics.geofenceEventsLostByCause[error.kind.rawValue, default: 0] += 1
        case .loadBatch:
            let nothing = PendingBatch(sessionID: "", locations: [], fixRows: [], geofenceEvents: [], eventRows: [])
            return handled(.batchLoaded(nothing), by: slot, at: time)
        default:
            break
        }
        return []
    }

    /// The device's answer to retention deleting pending fixes with the insert just made (its
    /// store's `expired` was `before`): its pending count follows the store's.
    mutating func expiredByRetention(since before: Int, slot: Int, at time: Int64) -> [DeviceAction] {
        let expired = (slots[slot].storage.store.ledger?.expired ?? before) - before
        guard expired > 0 else { return [] }
        return handled(.fixesExpired(count: expired), by: slot, at: time)
    }

    /// A fix the device asks its store to keep: the fleet's own count, which the stores' ledgers
    /// must match.
    private mutating func countHandedToStore(_ slot: Int) {
        let group = slots[slot].group
        metrics.fixes.handedToStores += 1
        metrics.fixesByGroup[group].handedToStores += 1
    }

    /// When a timer the device armed for its clock's reading `deadline` fires, true ms: the
    /// SDK's timers count elapsed time, so it fires as far from `time` as `deadline` is from the
    /// reading now, and a later jump of the clock does not move it.
    func trueDeadline(_ deadline: Int64, slot: Int, at time: Int64) -> Int64 {
        guard slots[slot].os.clock != nil else { return deadline }
        let (delay, overflow) = deadline.subtractingReportingOverflow(deviceNow(slot, at: time))
        guard !overflow else { return delay < 0 ? .min : .max }
        let (due, late) = time.addingReportingOverflow(delay)
        return late ? (delay < 0 ? .min : .max) : due
    }

    /// How old each fix of an acknowledged batch is, for the fleet and the device's group, on
    /// true time: a fix stamped on the phone's clock has its offset now undone (exact unless the
    /// clock jumped or synced since; an Android GNSS fix, stamped with the satellites' time, has
    /// none).
    private mutating func recordAgeAtAcknowledgement(_ batch: PendingBatch, slot: Int, at time: Int64) {
        let group = slots[slot].group
        let offset = deviceNow(slot, at: time) - time
        let satelliteTime = DeviceClock.stampsSatelliteTime(
            platform: slots[slot].identity.platform, accuracy: slots[slot].world.accuracy)
        for fix in batch.locations {
            let age = Double(time - fix.timestamp + (satelliteTime ? 0 : offset))
            metrics.fixes.ageAtAcknowledgement.record(age)
            metrics.fixesByGroup[group].ageAtAcknowledgement.record(age)
            metrics.history.recordAge(age, at: time)
        }
    }

    /// Keeps a stream value in the device's history and, when notable, numbered in the fleet's.
    private mutating func logStream(_ record: StreamRecord, slot: Int) {
        slots[slot].recent.streams.append(record)
        guard record.isNotable else { return }
        publication.log(record)
    }
}
