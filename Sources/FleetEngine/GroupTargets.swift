import FleetDescription

/// How many devices each group should have: its stages or day of load on the virtual clock (until
/// a `devices` command ends them), the count it was last brought to, and the counts the fleet file gave,
/// which a fleet-wide count is shared by.
struct GroupTargets {
    /// Each group's stages (nil: none, or ended).
    private var plans: [StagePlan?] = []
    /// The device count each group was last brought to (nil: never).
    private var targets: [Int?] = []
    /// The counts the fleet file gave the groups.
    private(set) var weights: [Int] = []
    /// Each group's new installs arriving (nil: none).
    private var arrivals: [ArrivalProcess?] = []

    /// The fleet file's groups: their counts, and the stages or day of load of those that have
    /// them (`FleetFile.groupStages`, `groupDaily`), from `start` plus each group's start delay.
    init(groups: [DeviceGroup], stages: [[Stage]?], daily: [DailyCurve?], start: Int64) {
        weights = groups.map(\.count)
        plans = groups.indices.map { index in
            let from = start + groups[index].startAfterMillis
            if let curve = daily[index] { return StagePlan(daily: curve, count: groups[index].count, from: from) }
            return stages[index].map { StagePlan($0, from: from) }
        }
    }

    /// An engine before its start: no group yet.
    init() {}

    /// Group `group`'s stages, if it still follows them.
    func plan(_ group: Int) -> StagePlan? {
        plans.indices.contains(group) ? plans[group] : nil
    }

    /// Ends every group's stages (a fleet-wide count was given); returns the groups that had them.
    mutating func endStages() -> [Int] {
        let ended = plans.indices.filter { plans[$0] != nil }
        plans = plans.map { _ in nil }
        return ended
    }

    /// Group `group` was brought to `count` devices.
    mutating func set(_ group: Int, to count: Int) {
        while targets.count <= group { targets.append(nil) }
        targets[group] = count
    }

    /// Group `group`'s new installs arrive by `process` (nil: none).
    mutating func setArrivals(_ group: Int, _ process: ArrivalProcess?) {
        while arrivals.count <= group { arrivals.append(nil) }
        arrivals[group] = process
    }

    /// Group `group`'s next new install after one at `time`; nil when no more arrive.
    mutating func nextArrival(_ group: Int, after time: Int64) -> Int64? {
        guard arrivals.indices.contains(group) else { return nil }
        return arrivals[group]?.next(after: time)
    }

    /// A new install arrived in group `group`: a count it was brought to (by a `devices` command)
    /// has one more.
    mutating func arrived(_ group: Int) {
        if targets.indices.contains(group), let target = targets[group] { targets[group] = target + 1 }
    }

    /// The weight each of `groups` groups shares a fleet-wide count by (1 for a group added later).
    func shares(groups: Int) -> [Int] {
        (0..<groups).map { weights.indices.contains($0) ? weights[$0] : 1 }
    }

    /// The devices wanted now over every group that has a target; nil when none has.
    var total: Int? {
        let set = targets.compactMap { $0 }
        return set.isEmpty ? nil : set.reduce(0, +)
    }
}
