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
