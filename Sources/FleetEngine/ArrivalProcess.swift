import BeekonDevice
import FleetDescription
import Foundation

/// A group's new installs arriving (`arrivals:`): a Poisson process on the virtual clock, its gaps
/// drawn from a stream of the run seed's keyed by the group, so every run and every shard has the
/// same arrivals, and a run without them draws nothing more.
struct ArrivalProcess: Sendable {
    /// The gaps' stream.
    private var rng: SplitMix64
    /// The mean arrivals an hour (above 0).
    private let perHour: Double
    /// No arrival at or after this instant; nil: none such.
    private let end: Int64?

    /// The process of `arrivals` for group `group` of a run with `seed`, from `start` (the group's
    /// start); nil when it has no arrival (`perHour: 0`).
    init?(_ arrivals: Arrivals, seed: UInt64, group: Int, start: Int64) {
        guard arrivals.perHour > 0 else { return nil }
        rng = SplitMix64(seed: seed).derived(Self.salt).derived(UInt64(group))
        perHour = arrivals.perHour
        end = arrivals.untilMillis.map { start + $0 }
    }

    /// What keys the arrivals' streams apart from the run's others.
    static let salt: UInt64 = 0xA881_7E

    /// The next arrival after one at `time` (or the process's start): an exponential gap of mean
    /// an hour ÷ `perHour`, whole ms rounded up (at least 1); nil once past the end.
    mutating func next(after time: Int64) -> Int64? {
        let draw = -log(Double.random(in: Double.leastNonzeroMagnitude..<1, using: &rng))
        let gap = (draw * Double(DailyCurve.hourMillis) / perHour).rounded(.up)
        let limit = Double((end ?? Timestamp.maxWritable) - time)
        guard gap < limit else { return nil }
        return time + max(1, Int64(gap))
    }
}
