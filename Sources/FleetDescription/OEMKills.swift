import BeekonDevice

/// Battery managers that kill an app's foreground service (seed 02: "aggressive OEM battery
/// managers can kill foreground services on devices from Xiaomi, Huawei, Samsung, OPPO, Vivo, and
/// others"): a group's `oemKills:` and the `oemKills` action. Each Android phone is killed on a
/// Poisson clock of its own at its maker's rate (`PhoneMaker.killsPerDay`), or at one rate for
/// all; WorkManager relaunches the app, as after a `kill`. iOS has no such managers.
public enum OEMKills: Sendable, Hashable {
    /// Each phone at its maker's rate, from the model it reports.
    case vendor
    /// Every Android phone at this rate, kills per virtual day (0: none).
    case perDay(Double)

    /// `perDay`: up to one an hour.
    public static let perDayRange = NumberRange(0...24, unit: "per day")

    /// The rate for a phone of `platform` reporting `model`, kills per virtual day.
    public func killsPerDay(platform: Platform, model: String) -> Double {
        guard platform == .android else { return 0 }
        switch self {
        case .vendor: return PhoneMaker(model: model).killsPerDay
        case .perDay(let rate): return rate
        }
    }
}

/// Who made an Android phone, as far as its `Build.MODEL` tells (the SDK reports no maker).
public enum PhoneMaker: String, Sendable, Hashable, CaseIterable {
    case google, samsung, xiaomi, huawei, oppo, oneplus, vivo, realme, other

    /// The maker of `model`: Pixels are Google's, `SM-` Samsung's, `CPH` OPPO's (OnePlus and
    /// realme share the code family; they are counted as OPPO), `RMX` realme's, `V2…` vivo's,
    /// Huawei's by its model codes, and Xiaomi's by its long numeric ones (`2311DRK48G`).
    public init(model: String) {
        let upper = model.uppercased()
        func starts(_ prefixes: [String]) -> Bool { prefixes.contains { upper.hasPrefix($0) } }
        if starts(["PIXEL", "NEXUS"]) {
            self = .google
        } else if starts(["SM-", "SAMSUNG", "GALAXY"]) {
            self = .samsung
        } else if starts(["ONEPLUS", "LE2", "KB2", "NE2", "PHB", "IN20"]) {
            self = .oneplus
        } else if starts(["CPH", "OPPO"]) {
            self = .oppo
        } else if starts(["RMX", "REALME"]) {
            self = .realme
        } else if starts(["VIVO"]) || (upper.hasPrefix("V2") && upper.dropFirst(2).prefix(3).allSatisfy(\.isNumber)) {
            self = .vivo
        } else if starts(["HUAWEI", "HONOR", "ELS-", "NOH-", "ANA-", "LIO-", "VOG-", "MAR-", "ALN-", "BRA-", "JAD-"]) {
            self = .huawei
        } else if starts(["XIAOMI", "REDMI", "POCO", "MI "])
            || (upper.count >= 8 && upper.hasPrefix("2") && upper.prefix(4).allSatisfy(\.isNumber))
            || (upper.hasPrefix("M2") && upper.dropFirst(2).prefix(3).allSatisfy(\.isNumber))
        {
            self = .xiaomi
        } else {
            self = .other
        }
    }

    /// How often its battery manager kills a tracking app's foreground service, per virtual day:
    /// the project's choice (docs/device-model.md, "OEM kills"), in the order dontkillmyapp.com
    /// ranks the makers; measure your own fleet's and give `perDay`.
    public var killsPerDay: Double {
        switch self {
        case .xiaomi, .huawei: 3
        case .samsung, .oneplus, .oppo, .vivo, .realme: 2
        case .other: 0.5
        case .google: 0
        }
    }
}
