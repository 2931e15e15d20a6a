import BeekonDevice
import BeekonStore

/// Why a device is in `storeError`: its store's last failure, until a write succeeds again.
struct StoreProblem: Sendable, Hashable {
    /// The failure's cause.
    var cause: StoreError.Kind
    /// SQLite's own message (`database or disk is full`).
    package var message: String
    /// When the device entered `storeError`, virtual Unix ms.
    var since: Int64
    /// Retries that failed so far; sets the next retry's delay.
    var failedRetries = 0
    /// What the failure interrupted, done once the store writes again.
    var resume: Resume?

    /// A step of the device's life that needs its store and did not happen.
    enum Resume: Sendable, Hashable {
        case spawn
        case relaunch(RelaunchCause)
    }

    /// Virtual ms before retry number `failedRetries + 1`: 10 s, doubling to at most 5 min.
    var retryDelayMillis: Int64 {
        min(10_000 << Int64(min(failedRetries, 5)), 300_000)
    }
}
