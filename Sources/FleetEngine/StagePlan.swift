import FleetDescription

/// One group's stages on the virtual clock: straight lines from one device count to the next;
/// with a period (a `daily:` curve), the lines repeat every period from the first one's start.
struct StagePlan: Sendable {
    struct Segment: Sendable {
        var start: Int64
        var end: Int64
        var from: Int
        var to: Int
    }

    var segments: [Segment]
    /// How often the lines repeat, ms (their start to the last one's end); nil: once.
    var period: Int64?

    /// The stages from `start`, each ramping from the previous target (the first from 0).
    init(_ stages: [Stage], from start: Int64) {
        var segments: [Segment] = []
        var at = start
        var count = 0
        for stage in stages {
            segments.append(Segment(start: at, end: at + stage.durationMillis, from: count, to: stage.devices))
            at += stage.durationMillis
            count = stage.devices
        }
        self.segments = segments
    }

    /// A day of load for a group of `count` from `start`: a line an hour from each local hour's
    /// count to the next's, repeating every day from the local midnight at or before `start`.
    init(daily curve: DailyCurve, count: Int, from start: Int64) {
        let midnight = curve.midnight(atOrBefore: start)
        segments = (0..<DailyCurve.hoursInDay).map { hour in
            Segment(
                start: midnight + Int64(hour) * DailyCurve.hourMillis,
                end: midnight + Int64(hour + 1) * DailyCurve.hourMillis,
                from: curve.devices(hour: hour, of: count),
                to: curve.devices(hour: (hour + 1) % DailyCurve.hoursInDay, of: count))
        }
        period = DailyCurve.dayMillis
    }

    /// The device count wanted at `time`: `lineTarget(at:)`, with a period at the same place in
    /// the period as `time`.
    func target(at time: Int64) -> Int {
        guard let (base, offset) = periodPlace(of: time) else { return lineTarget(at: time) }
        return lineTarget(at: base + offset)
    }

    /// The next instant after `time` when the count changes (nil once the last stage is over, or
    /// for a period in which the count never changes).
    func nextChange(after time: Int64) -> Int64? {
        guard let period, let (base, offset) = periodPlace(of: time) else { return lineChange(after: time) }
        // Later in this period, else the first change of the next one.
        if let next = lineChange(after: base + offset) { return time + next - (base + offset) }
        return lineChange(after: base - 1).map { time + period - offset + $0 - base }
    }

    /// For a plan with a period: the start of the first period and how far `time` is into its own
    /// (a time before the first period counts from an earlier one, as the same day would).
    private func periodPlace(of time: Int64) -> (base: Int64, offset: Int64)? {
        guard let period, let base = segments.first?.start else { return nil }
        let offset = ((time - base) % period + period) % period
        return (base, offset)
    }

    /// The device count the lines want at `time`: on the line of the stage under way (whole devices,
    /// counted down from the start, so a ramp reaches its target at its end), the last target once
    /// they are over. Integer arithmetic: the same instant gives the same count on every machine.
    private func lineTarget(at time: Int64) -> Int {
        guard let segment = segments.first(where: { time < $0.end }) else { return segments.last?.to ?? 0 }
        guard time > segment.start else { return segment.from }
        let delta = Int64(abs(segment.to - segment.from))
        let steps = Int((time - segment.start) * delta / (segment.end - segment.start))
        return segment.to >= segment.from ? segment.from + steps : segment.from - steps
    }

    /// The next instant after `time` when the lines' count changes (nil once they are over).
    private func lineChange(after time: Int64) -> Int64? {
        let current = lineTarget(at: time)
        for segment in segments where segment.end > time {
            if time < segment.start, segment.from != current { return segment.start }
            let delta = Int64(abs(segment.to - segment.from))
            guard delta > 0 else { continue }
            // The first instant the line has taken one more whole step than at `time`.
            let length = segment.end - segment.start
            let steps = (max(time, segment.start) - segment.start) * delta / length
            let at = segment.start + ((steps + 1) * length + delta - 1) / delta
            return max(at, time + 1)
        }
        return nil
    }
}
