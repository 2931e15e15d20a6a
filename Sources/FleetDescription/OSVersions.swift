import BeekonDevice

/// The OS releases devices report when their group names none: the releases in use late in
/// 2026, each as often in a run of 20 devices as its share of active phones, spread so that a
/// small group gets a fair mix too.
public enum OSVersions {
    /// iOS 27 (8 in 20), 26 (6), 18 (4), 17 and 16 (one each; 16 is the legacy path, Tracking
    /// at the first fix).
    public static let ios = [
        "27.1", "26.7", "27.1", "18.7", "27.1", "26.7", "27.1", "16.7", "27.1", "26.7", "18.7", "27.1", "26.7",
        "27.1", "17.7", "26.7", "27.1", "18.7", "26.7", "18.7",
    ].map { OSVersion($0)! }
    /// Android 16 and 15 (5 in 20 each), 14 (4), 13 (3), 12 (2), and 17 on the newest Pixels (1).
    public static let android = [
        "16", "15", "14", "16", "13", "15", "12", "16", "14", "15", "17", "16", "13", "15", "14", "16", "12", "15",
        "14", "13",
    ].map { OSVersion($0)! }

    /// The table for `platform`.
    public static func table(_ platform: Platform) -> [OSVersion] {
        switch platform {
        case .ios: ios
        case .android: android
        }
    }
}
