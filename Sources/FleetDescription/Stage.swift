import BeekonDevice

/// A step of the load, as k6's `stages`: over `durationMillis` of virtual time the device count
/// goes in a straight line from where it stands to `devices` (0 ms: at once). With stages a group
/// starts with no device and follows them; scaling down stops the newest devices (the SDK's
/// `stop()`: their pending fixes still upload) and scaling up starts stopped ones again before it
/// makes new ones.
public struct Stage: Sendable, Hashable {
    public var durationMillis: Int64
    public var devices: Int

    public init(durationMillis: Int64, devices: Int) {
        self.durationMillis = durationMillis
        self.devices = devices
    }

    /// A stage's target (`devices:`, `PATCH /api/v1/fleet`'s `devices`): 0 to 100 000 devices.
    public static let devicesRange = NumberRange.integer(0...100_000, unit: "devices")
}

extension FleetFile {
    /// Each group's stages: its own (`stages:` in the group), or its share of the fleet's
    /// (`stages:` at the top, each target shared over the groups without their own stages, curve or
    /// arrivals by their `count`, largest remainder first); nil for a group that follows none.
    public var groupStages: [[Stage]?] {
        let sharing = groups.indices.filter {
            groups[$0].stages == nil && groups[$0].daily == nil && groups[$0].arrivals == nil
        }
        var plans: [[Stage]?] = groups.map(\.stages)
        guard !stages.isEmpty, !sharing.isEmpty else { return plans }
        let weights = sharing.map { groups[$0].count }
        for index in sharing { plans[index] = [] }
        for stage in stages {
            for (position, share) in Self.shares(of: stage.devices, weights: weights, minimum: 0).enumerated() {
                plans[sharing[position]]?.append(Stage(durationMillis: stage.durationMillis, devices: share))
            }
        }
        return plans
    }

    /// Each group's day of load: its own (`daily:` in the group), or the fleet's for a group with
    /// neither stages, a curve nor arrivals of its own; nil for a group that follows none.
    public var groupDaily: [DailyCurve?] {
        groups.map { group in group.daily ?? (group.stages == nil && group.arrivals == nil ? daily : nil) }
    }

    /// The most devices the file has running at once, as far as it says: each group's count, for
    /// a group with stages the most they want, for one with a day of load its largest share of
    /// its count, for one with arrivals its count and the installs expected over `until` or the
    /// run's `duration` (what a run is sized by: its loops).
    public var mostDevices: Int {
        zip(groups, zip(groupStages, groupDaily)).reduce(0) { sum, entry in
            let (group, (stages, daily)) = entry
            if let daily {
                return sum + (0..<DailyCurve.hoursInDay).map { daily.devices(hour: $0, of: group.count) }.max()!
            }
            if let arrivals = group.arrivals {
                let hours = Double(arrivals.untilMillis ?? durationMillis ?? 0) / Double(DailyCurve.hourMillis)
                return sum + group.count + Int((arrivals.perHour * hours).rounded(.up))
            }
            return sum + (stages.map { stages in stages.map(\.devices).max() ?? 0 } ?? group.count)
        }
    }

    /// `total` shared by `weights` (equal shares when they are all 0): each share its exact part
    /// floored, at least `minimum`, and what is left by largest remainder (ties to the first);
    /// what the minimum took beyond its part is given back from the largest.
    public static func shares(of total: Int, weights: [Int], minimum: Int) -> [Int] {
        guard !weights.isEmpty else { return [] }
        let weightTotal = weights.reduce(0, +)
        let exact = weights.map {
            weightTotal == 0 ? Double(total) / Double(weights.count) : Double($0) * Double(total) / Double(weightTotal)
        }
        var counts = exact.map { max(minimum, Int($0.rounded(.down))) }
        var left = total - counts.reduce(0, +)
        let order = exact.indices.sorted { a, b in
            let (ra, rb) = (exact[a] - exact[a].rounded(.down), exact[b] - exact[b].rounded(.down))
            return ra != rb ? ra > rb : a < b
        }
        var index = 0
        while left > 0 {
            counts[order[index % order.count]] += 1
            left -= 1
            index += 1
        }
        while left < 0,
            let largest = counts.indices.filter({ counts[$0] > minimum }).max(by: { counts[$0] < counts[$1] })
        {
            counts[largest] -= 1
            left += 1
        }
        return counts
    }
}
