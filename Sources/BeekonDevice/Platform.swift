/// The emulated phone's operating system; the raw value is its wire spelling.
public enum Platform: String, Sendable, Hashable, CaseIterable, Codable {
    case ios
    case android
}
