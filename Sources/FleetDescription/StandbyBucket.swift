/// A group's `standbyBucket:`: the App Standby bucket Android has put the app in (seed 02, "Doze
/// and App Standby"). While the app runs, its foreground service exempts it; once a battery
/// manager or a `kill` has taken the service down, WorkManager's restart is a job, and the
/// bucket defers jobs: by up to 2 h in the working set, 8 h when frequent, 24 h when rare or
/// restricted (Android's "Power management restrictions" table). Each restart waits WorkManager's
/// minute plus a deferral drawn uniformly over the bucket's limit from the device's own stream.
/// iOS has no buckets.
public enum StandbyBucket: String, Sendable, Hashable, CaseIterable {
    case active, workingSet, frequent, rare, restricted

    /// The longest a job of an app in the bucket is deferred, virtual ms.
    public var maxDeferralMillis: Int64 {
        switch self {
        case .active: 0
        case .workingSet: 7_200_000
        case .frequent: 28_800_000
        case .rare, .restricted: 86_400_000
        }
    }

    /// "one of …" every bucket, for errors and the catalog.
    public static let words = allCases.map(\.rawValue)
}
