import BeekonDevice
import FleetDescription

/// Why a `kill` or `reboot` took an app's process down, and what brings it back, as seed 02 and
/// spec §2 tell it per platform:
///
/// - Android `kill`: WorkManager restarts the app after the delay (`workManager`).
/// - Android `reboot`: the whole phone is down for the delay; at boot completed the boot
///   receiver relaunches the app (`boot`).
/// - iOS `kill`: only a Significant Location Change wakes a terminated app. Every virtual minute
///   the phone's true position is checked; the first check that finds it
///   `significantMoveMeters` or more from where the process died relaunches the app
///   (`significantLocationChange`). A phone that does not move stays dead. An explicit delay is
///   the user opening the app at that instant (`userLaunch`), unless a significant move came
///   first; a check due at that same instant comes after the opening.
/// - iOS `reboot`: the phone is down for the delay; once booted, the iOS `kill` rule applies from
///   where the phone is at boot (no user opening: the delay is the boot's length).
///
/// The delay is the fault's `for`, else the action's `relaunchAfterSeconds`, else a minute; an
/// iOS `kill` without one has none. While down nothing runs: no fixes, no requests, no timers.
/// A `kill` or `reboot` of a phone whose app is already dead changes nothing, except a `reboot`
/// after a `kill`: the phone restarts, and the reboot's rule replaces the kill's.
struct ProcessOutage {
    /// `kill` or `reboot`.
    package var action: FleetAction.Name
    /// When the phone has booted again, virtual ms; nil for a kill (the phone stays up).
    var bootedAt: Int64?
    /// The instant the app relaunches at, and why; nil when only a significant move brings it back.
    var launch: (at: Int64, cause: RelaunchCause)?
    /// iOS: a significant move relaunches the app once the phone is up.
    var wakesOnSignificantMove: Bool
    /// Where a significant move is measured from: the true position where the process died, or
    /// where the phone was at boot; nil until known (not yet booted, or not yet spawned).
    var origin: (latitude: Double, longitude: Double)?

    /// "About 500 m of movement" wakes a terminated iOS app (spec §2, seed 02's SLC).
    static let significantMoveMeters = 500.0
    /// How often a dead iOS app's phone is checked for a significant move, virtual ms: on the
    /// virtual clock, not per fix, as the OS batches coarse location.
    static let significantMoveCheckMillis: Int64 = 60_000
    /// The delay of a `kill` (Android) or `reboot` that gives none.
    static let defaultDelayMillis: Int64 = 60_000

    /// The outage `action` (`kill` or `reboot`) causes on `platform` at `time`, with the delay
    /// the fault or action gave (nil: none given).
    static func plan(_ action: FleetAction.Name, platform: Platform, delayMillis: Int64?, since time: Int64)
        -> ProcessOutage
    {
        let bootedAt = action == .reboot ? time + (delayMillis ?? defaultDelayMillis) : nil
        switch platform {
        case .android:
            let launch = (
                bootedAt ?? time + (delayMillis ?? defaultDelayMillis),
                bootedAt == nil ? RelaunchCause.workManager : .boot
            )
            return ProcessOutage(action: action, bootedAt: bootedAt, launch: launch, wakesOnSignificantMove: false)
        case .ios:
            let userLaunch = bootedAt == nil ? delayMillis.map { (time + $0, RelaunchCause.userLaunch) } : nil
            return ProcessOutage(action: action, bootedAt: bootedAt, launch: userLaunch, wakesOnSignificantMove: true)
        }
    }

    /// Whether the phone runs (booted, or never rebooted) at `time`.
    func isUp(at time: Int64) -> Bool { (bootedAt ?? time) <= time }
}

extension FleetLoop {
    /// Explicit delay of a `kill` or `reboot`: the fault's `for`, else the action's
    /// `relaunchAfterSeconds`; nil when neither is given (see `ProcessOutage`).
    static func relaunchDelay(forMillis: Int64?, action: FleetAction) -> Int64? {
        switch action {
        case .kill(let after), .reboot(let after): forMillis ?? after
        default: nil
        }
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
