import BeekonDevice
import FleetDescription

extension FleetLoop {
    /// Explicit delay of a `kill` or `reboot`: the fault's `for`, else the action's
    /// `relaunchAfterSeconds`; nil when neither is given (see `ProcessOutage`).
    static func relaunchDelay(forMillis: Int64?, action: FleetAction) -> Int64? {
        switch action {
        case .kill(let after), .reboot(let after): forMillis ?? after
        default: nil
        }
    }

    /// The key of the stream of App Standby deferrals, derived from a device's seed ("STBY").
    static let standbyStreamKey: UInt64 = 0x5354_4259

    /// The outage a `kill` or `reboot` with explicit delay `delayMillis` (nil: none) causes the
    /// device now. An Android `kill` without one waits for WorkManager's job: its minute, plus
    /// a deferral drawn over the app's App Standby bucket's limit (`StandbyBucket`).
    mutating func outage(_ slot: Int, _ action: FleetAction.Name, delayMillis: Int64?, since time: Int64)
        -> ProcessOutage
    {
        let platform = slots[slot].identity.platform
        var delay = delayMillis
        let limit = slots[slot].os.standbyBucket.maxDeferralMillis
        if delay == nil, action == .kill, platform == .android, limit > 0 {
            var draws =
                slots[slot].os.standbyDraws ?? SplitMix64(seed: slots[slot].seed).derived(Self.standbyStreamKey)
            delay = ProcessOutage.defaultDelayMillis + Int64.random(in: 0...limit, using: &draws)
            slots[slot].os.standbyDraws = draws
        }
        return ProcessOutage.plan(action, platform: platform, delayMillis: delay, since: time)
    }

    /// Takes the app's process down for `outage`: it dies now (a device not yet spawned dies at
    /// its spawn), and the outage's timers are armed.
    mutating func takeDown(_ slot: Int, _ outage: ProcessOutage, at time: Int64) {
        let wasAlive = slots[slot].os.processAlive
        if !wasAlive {
            guard outage.action == .reboot, slots[slot].os.outage?.action == .kill else { return }
            schedule.timers.cancel(.significantMoveCheck(slot))
        }
        slots[slot].os.processAlive = false
        noteChange(slot)
        slots[slot].os.outage = outage
        // Armed before any significant-move check, so a user opening wins a check at its instant.
        if let launch = outage.launch {
            schedule.timers.schedule((), key: .relaunch(slot), at: launch.at)
        } else {
            schedule.timers.cancel(.relaunch(slot))
        }
        if let bootedAt = outage.bootedAt, bootedAt > time, outage.wakesOnSignificantMove {
            // The check at boot notes where the phone is.
            schedule.timers.schedule((), key: .significantMoveCheck(slot), at: bootedAt)
        }
        if wasAlive {
            processGone(slot, at: time)
        } else {
            watchForSignificantMove(slot, at: time)
        }
    }

    /// iOS, the phone up and the device spawned: a significant move from where the phone is now
    /// relaunches the app, checked from a minute on.
    mutating func watchForSignificantMove(_ slot: Int, at time: Int64) {
        guard var outage = slots[slot].os.outage, outage.wakesOnSignificantMove, outage.isUp(at: time),
            slots[slot].device != nil
        else { return }
        let here = truePosition(of: slot, at: time)
        outage.origin = (here.latitude, here.longitude)
        slots[slot].os.outage = outage
        schedule.timers.schedule(
            (), key: .significantMoveCheck(slot), at: time + ProcessOutage.significantMoveCheckMillis)
    }

    /// The periodic check of an iOS app dead until a significant move (at boot, the first one
    /// notes where the phone is).
    mutating func checkSignificantMove(_ slot: Int, at time: Int64) {
        guard let outage = slots[slot].os.outage, !slots[slot].os.processAlive, !slots[slot].removed else { return }
        guard let origin = outage.origin else {
            watchForSignificantMove(slot, at: time)
            return
        }
        let here = truePosition(of: slot, at: time)
        let moved = Geodesy.distanceMeters(
            fromLatitude: origin.latitude, longitude: origin.longitude, toLatitude: here.latitude,
            longitude: here.longitude)
        if moved >= ProcessOutage.significantMoveMeters {
            relaunch(slot, cause: .significantLocationChange, at: time)
        } else {
            schedule.timers.schedule(
                (), key: .significantMoveCheck(slot), at: time + ProcessOutage.significantMoveCheckMillis)
        }
    }

    /// The outage's set instant has come: WorkManager, the boot receiver, or the user.
    mutating func relaunchDue(_ slot: Int, at time: Int64) {
        guard let launch = slots[slot].os.outage?.launch else { return }
        relaunch(slot, cause: launch.cause, at: time)
    }

    /// A dead app comes back with what its store holds. The first state it enters (or, entering
    /// none, the state it lists) is recorded with the cause.
    mutating func relaunch(_ slot: Int, cause: RelaunchCause, at time: Int64) {
        guard !slots[slot].os.processAlive else { return }
        slots[slot].os.processAlive = true
        noteChange(slot)
        slots[slot].os.outage = nil
        schedule.timers.cancel(.relaunch(slot))
        schedule.timers.cancel(.significantMoveCheck(slot))
        // Killed before it spawned: its spawn, still to come, starts it.
        guard slots[slot].device != nil else { return }
        // What the app stored before it died is in its store when it comes back.
        perform(commitRows(slot), slot: slot, at: time)
        do {
            let restored = try slots[slot].storage.store.readDeviceState()
            let pending = try slots[slot].storage.store.pendingCount()
            let firstState = slots[slot].recent.stateHistory.appended
            feed(.processRelaunched(cause, restored: restored, pendingFixes: pending), to: slot, at: time)
            tellWorld(slot, at: time)
            if !slots[slot].recent.stateHistory.update(appended: firstState, { $0.cause = cause }) {
                slots[slot].recent.stateHistory.append(
                    StateChange(at: time, state: slots[slot].listedState, cause: cause))
            }
        } catch {
            // Relaunched when the store writes again.
            slots[slot].os.processAlive = false
            noteChange(slot)
            reportStoreError(error, slot: slot, at: time, resume: .relaunch(cause))
        }
    }
}
