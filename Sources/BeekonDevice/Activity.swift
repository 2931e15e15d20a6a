/// The physical activity classified onto a fix when `detectActivity` is on; the raw value is
/// its wire spelling.
public enum Activity: String, Sendable, Hashable, CaseIterable, Codable {
    case stationary
    case walking
    case running
    case cycling
    case automotive
    case unknown
}
