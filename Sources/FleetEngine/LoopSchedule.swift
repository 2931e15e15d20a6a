/// What fires when: the loop's timers, how far they have fired, and how a turn is bounded by
/// the answers devices wait for (see `FleetLoop.runDue`).
package struct LoopSchedule {
    var timers = TimerQueue<LoopTimer, Void>()
    /// The last virtual ms this turn may reach: just before the answer instant of a modelled
    /// transfer sent during it (without `lookahead`).
    var answerLimit: Int64 = .max
    /// Devices run ahead of one another's outstanding answers (`--warp max`): a device waits at
    /// its own answer instant for its real answer while the rest go on, and an event that
    /// concerns many devices (a fault) waits until every device has reached it. Without it, a
    /// turn stops short of the earliest outstanding answer instant (`answerLimit`).
    package private(set) var lookahead = false
    /// The furthest instant a timer has fired at (with `lookahead`, the device furthest ahead).
    package internal(set) var reachedMillis: Int64 = 0
    /// With `lookahead`: commands wait until every device has reached this instant (see
    /// `FleetLoop.readyForCommands()`), and no device passes it meanwhile.
    var syncTarget: Int64?
    /// How late timers fired since the driver last took it (`takeRecentTimerLateness`), real ms:
    /// the pace's windowed lateness (`PaceMeter`), cut where the driver samples it.
    var recentTimerLateness = LatencyHistogram()

    /// Turns `lookahead` on or off (off: at a common instant, every parked timer released).
    package mutating func setLookahead(_ on: Bool) {
        lookahead = on
        syncTarget = nil
        if !on { timers.releaseAll() }
    }

    /// How late timers fired since the last call, real ms; starts a new record.
    package mutating func takeRecentTimerLateness() -> LatencyHistogram {
        defer { recentTimerLateness = LatencyHistogram() }
        return recentTimerLateness
    }
}
