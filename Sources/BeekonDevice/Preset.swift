/// A gate preset: minimum time and distance between admitted fixes, and the OS accuracy request.
public enum Preset: String, Sendable, Hashable, CaseIterable, Codable {
    /// 60 s, 150 m, low accuracy (cell/Wi-Fi).
    case saver
    /// 30 s, 100 m, balanced accuracy. The default.
    case balanced
    /// 10 s, 30 m, high accuracy (GPS).
    case precision
}
