/// How the run keeps up with its warp: measured over its last real seconds (`PaceMeter`), with
/// what the whole run has been through so far.
public struct FleetPace: Sendable, Hashable, Codable {
    /// The warp set (virtual seconds per real second); nil at max warp, which sets none.
    public var warp: Double?
    /// Virtual time stands still: nothing is measured and nothing is behind.
    public var paused = false
    /// Virtual ms advanced ÷ real ms elapsed over the window (since the last warp change, pause
    /// or resume when that is more recent); nil until the window spans
    /// `PaceMeter.minimumSpanNanos`, and while paused. ≥ 0.
    public var achievedWarp: Double?
    /// How late timers fired over the same window, real ms (0 when none fired, as at max warp,
    /// where nothing follows the wall). ≥ 0.
    public var timerLatenessP99Millis = 0.0
    /// The latest of them, real ms. ≥ `timerLatenessP99Millis`.
    public var timerLatenessMaxMillis = 0.0
    /// The run cannot keep up with the warp set: the achieved warp is below
    /// `PaceMeter.behindFraction` of it, or timers' p99 lateness passes
    /// `PaceMeter.latenessBoundMillis`. Never at max warp or while paused.
    public var behind = false
    /// Real seconds the run has been behind, over the whole run (each sampled interval that
    /// ended behind counts whole). 0…the run's real seconds.
    public var behindSeconds = 0.0
    /// The lowest achieved warp measured at a warp set, over the whole run; nil before the first
    /// such measurement (or at max warp throughout).
    public var minAchievedWarp: Double?
    /// A device has waited a real second or more for its server's answer while the others kept the
    /// warp (modelled timing at a warp): the server's pace, not the fleet's, which is not behind.
    public var waitingForAnswers = false
    /// Real seconds the run yielded so, over the whole run. 0…the run's real seconds.
    public var answerWaitSeconds = 0.0
    /// How long the device waiting longest for its answer has waited, real seconds (each device
    /// waits for its own answers: lookahead at a warp); 0 otherwise. ≥ 0.
    public var longestAnswerWaitSeconds = 0.0

    /// No measurement yet.
    public init(warp: Double? = nil) {
        self.warp = warp
    }

    /// What the progress line says of the pace: `behind its warp: 41× of 60×, timers p99 2.3 s
    /// late` while behind, `warp max: 1,250×` at max warp (how fast it goes), nil otherwise.
    public var progressText: String? {
        guard !paused else { return nil }
        guard let warp else { return achievedWarp.map { "warp max: \(Self.rate($0))×" } ?? "warp max" }
        if waitingForAnswers {
            return "a device waits for the server's answer: \(Self.lateness(longestAnswerWaitSeconds * 1000)) real"
        }
        guard behind else { return nil }
        let achieved = achievedWarp.map { "\(Self.rate($0))× of " } ?? ""
        return
            "behind its warp: \(achieved)\(Self.rate(warp))×, timers p99 \(Self.lateness(timerLatenessP99Millis)) late"
    }

    /// A warp in a few figures: `1,250`, `41`, `2.5`, `1`.
    package static func rate(_ value: Double) -> String {
        value >= 10 ? StoreErrorLog.grouped(Int(value.rounded())) : String(format: "%g", value.rounded(places: 1))
    }

    /// A lateness in real time: `120 ms`, `2.3 s`.
    static func lateness(_ millis: Double) -> String {
        millis < 1000 ? String(format: "%.0f ms", millis) : String(format: "%.1f s", millis / 1000)
    }
}
