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
