import BeekonDevice
import FleetDescription

/// The OS's switches a user or fault flips, and the app's process.
struct PhoneOS {
    var permissionGranted = true
    var locationServicesOn = true
    var online = true
    var processAlive = true
    /// While the app is dead from a kill or reboot: what brings it back.
    var outage: ProcessOutage?
    /// Its app's processes so far: one more at each death, so an answer to a transfer an earlier
    /// process sent is known as unheard.
    var life = 0
    /// The phone's system clock, which the SDK reads; nil: true time (see `DeviceClock`).
    var clock: DeviceClock?
    /// A reinstalled app nobody has opened yet: it does nothing until the user does.
    var awaitingOpen = false
    /// The group's `churn`: the draws of the device's reinstalls (nil until its first spawn, or
    /// without churn), from a stream derived from its seed.
    var churnDraws: SplitMix64?
    /// How often its maker's battery manager kills the app, per virtual day (`oemKills`; 0:
    /// never), and the draws of its kills (nil until they start, at its first spawn).
    var oemKillsPerDay = 0.0
    var oemKillDraws: SplitMix64?
    /// Whether the phone dozes when still (`doze:`, a `doze` action; Android only), and where
    /// its Doze is (nil until it starts, at its first spawn).
    var doze: Doze?
    var dozeCycle: DozeCycle?
    /// The app's App Standby bucket (`standbyBucket:`, a `standbyBucket` action), and the draws
    /// of its deferred restarts (nil until the first).
    var standbyBucket = StandbyBucket.active
    var standbyDraws: SplitMix64?
}
