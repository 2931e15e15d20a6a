import BeekonDevice
import FleetDescription

/// The loop's clock: where the run started and why, the warp, how long a transfer takes on the
/// virtual clock, and the driver's real clocks as it last handed them over. The loop's
/// `metrics.virtualNow` is the fleet's instant; this says how that instant relates to real time.
package struct LoopClock {
    /// Virtual seconds per real second, as the driver runs the clock: what a real answer's time
    /// means on the virtual clock (`asAnswered`), lateness in real ms, and the snapshot.
    package internal(set) var warp: Double
    /// The run starts at max warp (`--warp max`, `clock.warp: max`): virtual time jumps to the
    /// next event once the due work is done, until a warp is set.
    package let startsAtMaxWarp: Bool
    /// How long a transfer takes on the virtual clock: the run's option, else the fleet file's,
    /// else chosen by the warp (`TimingChoice.auto`); modelled from the moment max warp begins,
    /// or, when chosen by the warp, from the moment it leaves 1 (`FleetLoop.useModelledTiming`).
    package internal(set) var transferTiming: TransferTiming
    /// The timing follows the warp (`TimingChoice.auto`): modelled once the warp is not 1.
    package let timingFollowsWarp: Bool
    /// Where this run's clock started (virtual Unix ms), and why (set by `FleetLoop.start`).
    package internal(set) var runStart = RunStart(millis: 0, reason: .fresh)
    /// The data folder's `clock.json`, as the previous run on it left it (nil when there is none).
    package let previousClock: ClockRecord?
    /// The driver's real clock at the start of this step, ns (rate limits and admin spawn pacing).
    package var realNow: UInt64 = 0
    /// The wall clock (Unix ms) as the driver read it when it handed over the answers being
    /// heard: a server's HTTP-dates are on its clock, not the fleet's (nil: the simulated
    /// driver's servers date on the virtual clock).
    package var wallMillis: Int64?
    /// The clock stands still at the time reached, every device with it: the fleet was paused at
    /// a warp (at max warp devices may stand past the clock, so a pause there only stops turns).
    package private(set) var standsStill = false

    /// The clock `options` and `fleet` ask for; refuses a warp or clock start out of range, and
    /// max warp with transfers timed as answered.
    init(options: RunOptions, fleet: FleetFile, previousClock: ClockRecord?) throws(RunError) {
        if let warp = options.warp?.rate {
            do throws(NumberProblem) {
                _ = try FleetClock.warpRange.check(warp)
            } catch {
                throw RunError(description: "warp \(error)")
            }
        }
        if let start = options.clockStart, !Timestamp.inputRange.contains(Double(start)) {
            throw RunError(description: "clock start \(start) ms is out of range; expected \(Timestamp.inputRange)")
        }
        let setting = options.warp ?? fleet.clock.warp
        startsAtMaxWarp = setting == .max
        let choice = options.timing ?? fleet.clock.timing
        timingFollowsWarp = options.transferTiming == nil && choice == .auto
        switch options.transferTiming {
        case let timing?: transferTiming = timing
        case nil:
            switch choice {
            case .modelled: transferTiming = .deterministic
            case .asAnswered: transferTiming = .asAnswered
            case .auto: transferTiming = setting == .rate(1) ? .asAnswered : .deterministic
            }
        }
        if startsAtMaxWarp, case .asAnswered = transferTiming {
            throw RunError(
                description:
                    "max warp needs modelled transfer timing (`--timing modelled`): "
                    + "at an unbounded warp every real answer would be a timeout"
            )
        }
        // At max warp the rate only stands for what a warp means elsewhere (the clock record's
        // slack, a warp the API sets later): the fleet file's, or real time.
        warp = setting.rate ?? fleet.clock.warp.rate ?? 1
        self.previousClock = previousClock
    }

    /// Where the run's clock started, virtual Unix ms.
    package var startMillis: Int64 { runStart.millis }

    /// Whether the clock stands still from now on; whether that changed.
    mutating func setStandsStill(_ still: Bool) -> Bool {
        defer { standsStill = still }
        return still != standsStill
    }

    /// Sets the warp; whether transfers are to be modelled from now on (the timing follows the
    /// warp, and it left 1).
    mutating func setWarp(_ newWarp: Double) -> Bool {
        warp = newWarp
        return timingFollowsWarp && newWarp != 1
    }

    /// Transfers are timed by the model from now on: the modelled latency, or nil when they were
    /// already.
    mutating func useModelledTiming() -> Int64? {
        guard !transferTiming.isModelled, case .modelled(let latency) = TransferTiming.deterministic else { return nil }
        transferTiming = .deterministic
        return latency
    }
}
