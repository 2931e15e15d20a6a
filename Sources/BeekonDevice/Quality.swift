/// Why a fix is suspect; absence means the fix is good. The raw value is its wire spelling.
public enum Quality: String, Sendable, Hashable, CaseIterable, Codable {
    /// Accuracy worse than 100 m.
    case lowAccuracy = "low_accuracy"
    /// Faster than 300 m/s from the last admitted fix.
    case implausibleSpeed = "implausible_speed"
}
