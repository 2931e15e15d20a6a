/// How fast the person carrying the phone goes, by what they are doing (issue #4's defaults).
public enum Pace: String, Sendable, Hashable, CaseIterable, Codable {
    case walk
    case run
    case cycle
    case drive

    /// Metres per second: walk 1.4, run 3, cycle 5.5, drive 13.
    public var metersPerSecond: Double {
        switch self {
        case .walk: 1.4
        case .run: 3
        case .cycle: 5.5
        case .drive: 13
        }
    }
}
