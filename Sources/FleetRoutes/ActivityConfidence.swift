/// How sure a recognizer is of its activity, in iOS's words (`CMMotionActivityConfidence`).
public enum ActivityConfidence: String, Sendable, Hashable, CaseIterable, Comparable {
    case low
    case medium
    case high

    /// Android's 0–100 confidence in iOS's three steps: below 50 low, below 75 medium, else high
    /// (75 is the level Google's samples treat as "likely").
    public init(percent: Int) {
        switch percent {
        case ..<50: self = .low
        case ..<75: self = .medium
        default: self = .high
        }
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
