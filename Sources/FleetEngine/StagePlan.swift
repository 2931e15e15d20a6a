import FleetDescription

/// One group's stages on the virtual clock: straight lines from one device count to the next.
struct StagePlan: Sendable {
    struct Segment: Sendable {
        var start: Int64
        var end: Int64
        var from: Int
        var to: Int
    }

    var segments: [Segment]

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

    /// The device count wanted at `time`: on the line of the stage under way (whole devices,
    /// counted down from the start, so a ramp reaches its target at its end), the last target once
    /// they are over. Integer arithmetic: the same instant gives the same count on every machine.
    func target(at time: Int64) -> Int {
        guard let segment = segments.first(where: { time < $0.end }) else { return segments.last?.to ?? 0 }
        guard time > segment.start else { return segment.from }
        let delta = Int64(abs(segment.to - segment.from))
        let steps = Int((time - segment.start) * delta / (segment.end - segment.start))
        return segment.to >= segment.from ? segment.from + steps : segment.from - steps
    }

    /// The next instant after `time` when the count changes (nil once the last stage is over).
    func nextChange(after time: Int64) -> Int64? {
        let current = target(at: time)
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
