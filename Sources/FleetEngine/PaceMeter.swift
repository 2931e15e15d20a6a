/// Measures the run's pace from readings the driver takes about once a real second: the real
/// clock (ns), the virtual time reached (ms) and the timers' lateness since the last reading.
///
/// Pure: it reads no clock. The window is the last `windowSeconds` real seconds of readings at
/// one setting (warp, max warp, paused): a change of setting starts a new window from its real
/// instant (`restart`), so the time before a pause or a warp change never counts against the
/// new one.
public struct PaceMeter: Sendable {
    /// One reading: the real instant, the virtual time reached then, and how late timers fired
    /// since the previous reading.
    public struct Reading: Sendable {
        public var realNanos: UInt64
        public var virtualMillis: Int64
        public var lateness: LatencyHistogram
        /// With each device waiting for its own answers (lookahead at a warp): how far behind the
        /// fleet's pace the device waiting longest for an answer stands, virtual ms.
        public var answerLagMillis: Int64

        public init(
            realNanos: UInt64, virtualMillis: Int64, lateness: LatencyHistogram = LatencyHistogram(),
            answerLagMillis: Int64 = 0
        ) {
            self.realNanos = realNanos
            self.virtualMillis = virtualMillis
            self.lateness = lateness
            self.answerLagMillis = answerLagMillis
        }
    }

    /// The window, in readings (real seconds while the loop turns at least once a second; a
    /// reading taken late covers the whole interval since the previous one): 10, long enough that
    /// one slow second (a snapshot, a burst of answers) does not make the run behind, short
    /// enough that the verdict follows the load within seconds. 1…3600.
    public static let windowSeconds = 10
    /// How often the real driver takes a reading, real ns: a second (so the window holds up to
    /// `windowSeconds` intervals).
    public static let readingIntervalNanos: UInt64 = 1_000_000_000
    /// The shortest span an achieved warp is measured over, real ns: half a second; a shorter
    /// one (just after a change) is mostly the granularity of the loop's sleeps (up to 100 ms).
    public static let minimumSpanNanos: UInt64 = 500_000_000
    /// Behind below this fraction of the warp set (0…1): 0.9, so the clock's rounding, a held
    /// answer or a dropped 100 ms of lag now and then are not "behind", while a run that loses
    /// a tenth of its virtual time is.
    public static let behindFraction = 0.9
    /// Behind when the window's p99 timer lateness passes this, real ms: 1 s, ten times the
    /// clock's lag bound (`FleetClock.maxLagRealNanos`, the longest a loop that keeps up is late
    /// by), and the SDK's shortest intervals (a fix a second) are visibly off past it.
    public static let latenessBoundMillis = 1_000.0

    /// The warp set, nil at max warp.
    private var warp: Double?
    private var paused: Bool
    /// Readings at the current setting, oldest first: the first is where the window starts
    /// (its lateness, from before it, is not counted); at most `windowSeconds + 1`.
    private var readings: [Reading]
    /// The real instant of the latest reading (or of the window's start).
    public var lastRealNanos: UInt64? { readings.last?.realNanos }
    /// What the meter says now.
    public private(set) var pace: FleetPace

    /// A meter whose window starts at `realNanos`, `virtualMillis`, at the warp set (nil: max warp).
    public init(
        realNanos: UInt64, virtualMillis: Int64, warp: Double?, paused: Bool = false
    ) {
        self.warp = warp
        self.paused = paused
        readings = [Reading(realNanos: realNanos, virtualMillis: virtualMillis)]
        pace = FleetPace(warp: warp)
        pace.paused = paused
    }

    /// Starts a new window at `realNanos`, `virtualMillis` for a new setting (a warp set, max
    /// warp with nil, a pause or a resume); the run's totals stay. The current window's lateness
    /// and achieved warp are forgotten: they belonged to the old setting.
    public mutating func restart(
        realNanos: UInt64, virtualMillis: Int64, warp: Double?, paused: Bool
    ) {
        self.warp = warp
        self.paused = paused
        readings = [Reading(realNanos: realNanos, virtualMillis: virtualMillis)]
        pace.warp = warp
        pace.paused = paused
        pace.achievedWarp = nil
        pace.timerLatenessP99Millis = 0
        pace.timerLatenessMaxMillis = 0
        pace.behind = false
        pace.waitingForAnswers = false
    }

    /// Takes a reading (its real instant at or after the previous one's; an earlier one is
    /// ignored) and says the pace over the window it ends; the interval since the previous
    /// reading counts as behind when the verdict is.
    public mutating func record(_ reading: Reading) {
        guard let previous = readings.last, reading.realNanos >= previous.realNanos else { return }
        readings.append(reading)
        if readings.count > Self.windowSeconds + 1 { readings.removeFirst(readings.count - Self.windowSeconds - 1) }
        let base = readings[0]
        let span = reading.realNanos - base.realNanos
        pace.achievedWarp =
            paused || span < Self.minimumSpanNanos
            ? nil : max(0, Double(reading.virtualMillis - base.virtualMillis) / (Double(span) / 1e6))
        var lateness = LatencyHistogram()
        for later in readings.dropFirst() { lateness.merge(later.lateness) }
        pace.timerLatenessP99Millis = lateness.percentile(0.99)
        pace.timerLatenessMaxMillis = lateness.count > 0 ? lateness.max : 0
        pace.behind = Self.isBehind(
            warp: warp, paused: paused, achievedWarp: pace.achievedWarp, latenessP99Millis: pace.timerLatenessP99Millis)
        // Devices that wait for their own answers while the rest keep the warp: a device a real
        // second or more behind waits for the server, not for the fleet.
        pace.longestAnswerWaitSeconds = warp.map { Double(reading.answerLagMillis) / $0 / 1_000 } ?? 0
        pace.waitingForAnswers = !pace.behind && !paused && pace.longestAnswerWaitSeconds >= 1
        let interval = Double(reading.realNanos - previous.realNanos) / 1e9
        if pace.behind { pace.behindSeconds += interval }
        if pace.waitingForAnswers { pace.answerWaitSeconds += interval }
        if warp != nil, let achieved = pace.achievedWarp {
            pace.minAchievedWarp = min(pace.minAchievedWarp ?? achieved, achieved)
        }
    }

    /// The verdict: behind at a warp set, running, when the achieved warp (if measured) is below
    /// `behindFraction` of it or the lateness p99 passes `latenessBoundMillis`.
    public static func isBehind(warp: Double?, paused: Bool, achievedWarp: Double?, latenessP99Millis: Double) -> Bool {
        guard let warp, !paused else { return false }
        if let achievedWarp, achievedWarp < behindFraction * warp { return true }
        return latenessP99Millis > latenessBoundMillis
    }
}
