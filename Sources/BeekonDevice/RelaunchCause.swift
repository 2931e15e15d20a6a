/// What brought a dead process back.
public enum RelaunchCause: String, Sendable, Hashable, CaseIterable, Codable {
    /// iOS: a significant-location-change wake (about 500 m of movement).
    case significantLocationChange
    /// Android: WorkManager's restart-if-killed.
    case workManager
    /// Android: the boot receiver after a reboot.
    case boot
    /// The user opened the app again.
    case userLaunch
    /// The app was updated: the update ended the old process and the new version started.
    case appUpdate
}
