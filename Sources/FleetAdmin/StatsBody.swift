import FleetEngine
import FleetReport

/// `GET /api/v1/stats`.
struct StatsBody: APIBody {
    enum Kind: String, APIEnum { case status, network }

    struct Window: APIBody {
        var count: Int
        var ratePerSecond: Double
        var latencyMs: PercentilesBody
        var serverLatencyMs: PercentilesBody

        /// `tally` over the window's `seconds` of real time.
        init(_ tally: UploadStats.Tally, seconds: Double) {
            count = tally.count
            ratePerSecond = StatsBody.rate(tally.count, seconds)
            latencyMs = PercentilesBody(tally.latency)
            serverLatencyMs = PercentilesBody(tally.serverLatency)
        }

        static let example = Window(UploadStats.Tally(), seconds: 1)
        static let notes = ["ratePerSecond": APINote("Over the last 10 s of real time (or the run's, if shorter).")]
    }

    /// Per second, to the hundredth.
    static func rate(_ count: Int, _ seconds: Double) -> Double {
        Rounding.perSecond(Double(count) / Swift.max(seconds, 0.001))
    }

    struct Outcome: APIBody {
        var outcome: String
        var kind: Kind
        var count: Int
        var ratePerSecond: Double
        var latencyMs: PercentilesBody
        var serverLatencyMs: PercentilesBody
        var last10s: Window

        static let example = Outcome(
            outcome: "", kind: .status, count: 0, ratePerSecond: 0, latencyMs: .example, serverLatencyMs: .example,
            last10s: .example)
        static let notes = [
            "outcome": APINote("What the devices heard (see UploadRecord.outcome)."),
            "count": APINote("Over the run."),
            "ratePerSecond": APINote(
                "Since the last reset (or over the whole run), per second of real time; `last10s` has the last "
                    + "10 s's."),
            "latencyMs": APINote("Virtual ms from send to outcome, as the devices lived it."),
            "serverLatencyMs": APINote(
                "Real ms the server took, over the uploads of this outcome it answered (zeros when none)."),
        ]
    }

    var outcomes: [Outcome]
    var fixes: FixesBody
    var uploadsPerSecond: Double
    var devicesByState: APIMap<Int>
    var since: APITime?
    var timing: TimingBody
    var latencyMs: PercentilesBody
    var serverLatencyMs: PercentilesBody
    var fleetHealth: FleetHealthBody

    init(_ snapshot: FleetSnapshot) {
        let window = UInt64(UploadStats.windowSeconds)
        let recent = snapshot.metrics.uploads.window(
            from: snapshot.realSecond + 1 >= window ? snapshot.realSecond + 1 - window : 0, through: snapshot.realSecond
        )
        let seconds = Swift.max(1, Swift.min(Double(window), snapshot.metrics.realSeconds))
        var recentTotal = 0
        let uploads = snapshot.metrics.uploads
        // Since the last reset: its real seconds, else the run's.
        let counted =
            uploads.resetAt.map { Double(snapshot.realSecond) - Double($0.realSecond) }
            ?? snapshot.metrics.realSeconds
        outcomes = uploads.sinceReset.sorted(by: { $0.key < $1.key }).map { outcome, tally in
            let last = recent[outcome] ?? UploadStats.Tally()
            recentTotal += last.count
            return Outcome(
                outcome: outcome.description, kind: outcome.isNetwork ? .network : .status, count: tally.count,
                ratePerSecond: Self.rate(tally.count, Swift.max(1, counted)),
                latencyMs: PercentilesBody(tally.latency), serverLatencyMs: PercentilesBody(tally.serverLatency),
                last10s: Window(last, seconds: seconds))
        }
        fixes = FixesBody(snapshot.metrics.fixes)
        uploadsPerSecond = Self.rate(recentTotal, seconds)
        devicesByState = APIMap(sorting: snapshot.metrics.devicesByState)
        since = APITime(optional: uploads.resetAt?.virtual)
        timing = TimingBody(deterministic: snapshot.deterministic)
        latencyMs = PercentilesBody(snapshot.metrics.latency)
        serverLatencyMs = PercentilesBody(snapshot.metrics.serverLatency)
        fleetHealth = FleetHealthBody(snapshot.metrics)
    }

    static let example = StatsBody(FleetSnapshot())
    static let component: String? = "Stats"
    static let notes = [
        "outcomes": APINote("Since the statistics were last reset (`since`), else over the whole run."),
        "uploadsPerSecond": APINote("Over the last 10 s of real time."),
        "since": APINote(
            "When `DELETE /api/v1/stats` last reset the statistics (virtual time); null when never. The run's own "
                + "figures (fix counts, thresholds, `/metrics`' counters) never reset."),
        "timing": APINote(
            "How answers take their time on the virtual clock now, which says what `latencyMs` means: `modelled` "
                + "(100 virtual ms plus injected latency) or `as-answered` (real time × the warp)."),
        "latencyMs": APINote("Every upload over the run: virtual ms from send to outcome, as the devices heard it."),
        "serverLatencyMs": APINote(
            "Every upload the server answered over the run (heard in time or not): real ms, the same at any warp."),
    ]
}
