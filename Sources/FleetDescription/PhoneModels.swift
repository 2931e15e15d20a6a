import BeekonDevice

/// The phone models a device reports (`device.model` in its uploads), per platform: an iOS device
/// never reports a Pixel. A group's `model:` list gives each platform the names that belong to it
/// (`iPhone…`/`iPad…` for iOS, the rest for Android); a platform it gives none for draws from the
/// table here, recent models as their SDKs report them (Apple's machine identifiers, Android's
/// `Build.MODEL`).
public enum PhoneModels {
    /// iPhone 14 Pro to iPhone 16 Pro Max, as `utsname.machine` names them.
    public static let ios = [
        "iPhone15,2", "iPhone15,3", "iPhone15,4", "iPhone15,5", "iPhone16,1", "iPhone16,2", "iPhone17,1",
        "iPhone17,2", "iPhone17,3", "iPhone14,7",
    ]
    /// Pixel, Samsung Galaxy S and A, OnePlus and Xiaomi models of the last three years, as
    /// `Build.MODEL` names them.
    public static let android = [
        "Pixel 8", "Pixel 8 Pro", "Pixel 7a", "Pixel 9", "SM-S921B", "SM-S918B", "SM-A546B", "SM-A556B", "CPH2581",
        "2311DRK48G",
    ]

    /// The platform a model name belongs to.
    public static func platform(of model: String) -> Platform {
        model.hasPrefix("iPhone") || model.hasPrefix("iPad") ? .ios : .android
    }

    /// The models a device of `platform` draws from: those of `given` that belong to it, else the
    /// platform's table.
    public static func choices(for platform: Platform, given: [String]) -> [String] {
        let own = given.filter { Self.platform(of: $0) == platform }
        if !own.isEmpty { return own }
        switch platform {
        case .ios: return ios
        case .android: return android
        }
    }
}

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

/// The SDK version devices report when their group names none: the SDK's own (spec §1).
public enum SDKVersions {
    public static let `default` = ["0.1.1"]
}
