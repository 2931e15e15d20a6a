import BeekonDevice

/// What the loop's timer queue holds.
enum LoopTimer: Hashable, Sendable {
    /// A device's own timer.
    case device(Int, DeviceTimer)
    /// The emulated OS provider's next fix for a device.
    case providerTick(Int)
    /// A device is spawned.
    case spawn(Int)
    /// A fault starts (by timeline index).
    case fault(Int)
    /// A fault's `for` is over (by fault number: see `TimelineFault.fault`).
    case faultEnd(Int)
    /// A dead app's set relaunch instant (see `ProcessOutage`).
    case relaunch(Int)
    /// An iOS app dead until a significant move: is the phone far enough yet?
    case significantMoveCheck(Int)
    /// A transfer's answer, held back by a `latency` fault, reaches the device (by transfer number).
    case delivery(Int)
    /// The SDK's timeout of a transfer (by transfer number), on the virtual clock.
    case transferTimeout(Int)
    /// A device in `storeError` tries its store again.
    case storeRetry(Int)
    /// A group's stages change its device count (by group index).
    case stage(Int)
    /// The user opens a reinstalled app (see `FleetLoop.reinstall`).
    case open(Int)
    /// The group's `churn` reinstalls a device.
    case churnReinstall(Int)
    /// The group's `churn` upgrades a device's app.
    case churnUpgrade(Int)
    /// A device's network flaps: its stretch up or down is over (see `LinkFlap`).
    case linkFlap(Int)
    /// A phone's battery manager kills its app (see `FleetLoop.oemKillDue`).
    case oemKill(Int)
    /// A phone's Doze looks at its motion and moves on (see `DozeCycle`).
    case doze(Int)
    /// A new install of a group arrives (by group index; see `ArrivalProcess`).
    case arrival(Int)
}
