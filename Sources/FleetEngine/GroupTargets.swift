import FleetDescription

/// How many devices each group should have: its stages on the virtual clock (until a `devices`
/// command ends them), the count it was last brought to, and the counts the fleet file gave,
/// which a fleet-wide count is shared by.
struct GroupTargets {
    /// Each group's stages (nil: none, or ended).
    private var plans: [StagePlan?] = []
    /// The device count each group was last brought to (nil: never).
    private var targets: [Int?] = []
    /// The counts the fleet file gave the groups.
    private(set) var weights: [Int] = []

    /// The fleet file's groups: their counts, and the stages of those that have them, from `start`
    /// plus each group's start delay.
    init(groups: [DeviceGroup], stages: [[Stage]?], start: Int64) {
        weights = groups.map(\.count)
        plans = zip(groups, stages).map { group, stages in
            stages.map { StagePlan($0, from: start + group.startAfterMillis) }
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
