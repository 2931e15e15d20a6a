import FleetDescription

/// The figures of a verification, for the run or one group: each category's fixes, and what
/// the server holds twice or under the wrong device.
public struct TruthCounts: Sendable, Hashable {
    /// Fixes by category; every category is present (0 when none).
    public var fixes: [FixVerdict: Int] = Dictionary(uniqueKeysWithValues: FixVerdict.allCases.map { ($0, 0) })
    /// Fix ids the server holds more than once.
    public var duplicates = 0
    /// The rows past the first of each duplicated fix id.
    public var duplicateRows = 0
    /// Fix ids the server holds under another install id than their device's.
    public var misattributed = 0
    /// Rows whose fix id no device of the run sent or holds (the run only: no group's).
    public var foreign = 0
    /// Rows of devices whose stores predate told records: not judged.
    public var unrecorded = 0

    public init() {}

    /// The figures a report's `server_truth` holds (`keyed`'s members); nil when one is missing.
    public init?(keyed: [String: Int]) {
        var counts = TruthCounts()
        for verdict in FixVerdict.allCases {
            // A report from before reinstalls has no uninstalled fixes.
            guard let count = keyed[verdict.rawValue] ?? (verdict == .uninstalledNotStored ? 0 : nil) else {
                return nil
            }
            counts.fixes[verdict] = count
        }
        guard let duplicates = keyed["duplicates"], let duplicateRows = keyed["duplicate_rows"],
            let misattributed = keyed["misattributed"], let foreign = keyed["foreign"],
            let unrecorded = keyed["unrecorded"]
        else { return nil }
        counts.duplicates = duplicates
        counts.duplicateRows = duplicateRows
        counts.misattributed = misattributed
        counts.foreign = foreign
        counts.unrecorded = unrecorded
        self = counts
    }

    /// Fix ids of the run the server holds (once or more).
    public var storedFixes: Int {
        fixes[.acknowledgedStored, default: 0] + fixes[.storedThoughRejected, default: 0]
            + fixes[.storedUnheard, default: 0]
    }

    /// A threshold's figure: a count, or a share of what it can happen to (nil when nothing
    /// could: no acknowledged fix to lose).
    public func value(_ figure: Threshold.Metric.ServerFigure, _ share: Threshold.Metric.Share, serverRows: Int)
        -> Double?
    {
        let count: Int
        let total: Int
        switch figure {
        case .lost:
            count = fixes[.lost, default: 0]
            total = count + fixes[.acknowledgedStored, default: 0]
        case .duplicates:
            count = duplicates
            total = storedFixes
        case .storedThoughRejected:
            count = fixes[.storedThoughRejected, default: 0]
            total = count + fixes[.rejectedNotStored, default: 0]
        case .foreign:
            count = foreign
            total = serverRows
        case .misattributed:
            count = misattributed
            total = storedFixes
        }
        switch share {
        case .count: return Double(count)
        case .rate: return total == 0 ? nil : Double(count) / Double(total)
        }
    }

    /// The report's object: each category, then the server's own figures, by key.
    var keyed: [String: Int] {
        var keyed = Dictionary(uniqueKeysWithValues: fixes.map { ($0.key.rawValue, $0.value) })
        keyed["duplicates"] = duplicates
        keyed["duplicate_rows"] = duplicateRows
        keyed["misattributed"] = misattributed
        keyed["foreign"] = foreign
        keyed["unrecorded"] = unrecorded
        return keyed
    }
}
