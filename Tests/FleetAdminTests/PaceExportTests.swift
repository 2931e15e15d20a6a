import FleetEngine
import Testing

@testable import FleetAdmin
@testable import FleetReport

/// The run's pace as the admin API, `/metrics` and the run report say it, from a made-up
/// `FleetPace` (the measurement itself: `PaceMeterTests`; a real run: `AdminRealFleetTests`).
@Suite("Pace in the API, /metrics and the report")
struct PaceExportTests {
    static func snapshot(_ pace: FleetPace) -> FleetSnapshot {
        var snapshot = FleetSnapshot()
        snapshot.metrics.pace = pace
        return snapshot
    }

    static let behind: FleetPace = {
        var pace = FleetPace(warp: 60)
        pace.achievedWarp = 41.234
        pace.timerLatenessP99Millis = 2_300.5
        pace.timerLatenessMaxMillis = 3_100
        pace.behind = true
        pace.behindSeconds = 12.34
        pace.minAchievedWarp = 38.456
        return pace
    }()

    static let atMaxWarp: FleetPace = {
        var pace = FleetPace(warp: nil)
        pace.achievedWarp = 1_250
        return pace
    }()

    @Test("GET /api/v1/fleet's pace: the warp set (null at max warp), the achieved warp, lateness and the verdict")
    func fleetSummary() {
        let behind = APIBodyTests.text(FleetSummaryBody(Self.snapshot(Self.behind)).pace)
        #expect(
            behind
                == #"{"warp":60,"achievedWarp":41.23,"timerLatenessP99Ms":2300.5,"timerLatenessMaxMs":3100,"#
                + #""behind":true,"behindSeconds":12.3}"#)
        let max = APIBodyTests.text(FleetSummaryBody(Self.snapshot(Self.atMaxWarp)).pace)
        #expect(
            max
                == #"{"warp":null,"achievedWarp":1250,"timerLatenessP99Ms":0,"timerLatenessMaxMs":0,"#
                + #""behind":false,"behindSeconds":0}"#)
    }

    @Test("/metrics has the achieved warp, the windowed lateness and behind as gauges, with HELP and TYPE")
    func prometheus() {
        let text = PrometheusText.render(Self.snapshot(Self.behind))
        for line in [
            "# TYPE beekon_fleet_achieved_warp gauge", "beekon_fleet_achieved_warp 41.234",
            "# TYPE beekon_fleet_timer_lateness_p99_seconds gauge", "beekon_fleet_timer_lateness_p99_seconds 2.3005",
            "# TYPE beekon_fleet_timer_lateness_max_seconds gauge", "beekon_fleet_timer_lateness_max_seconds 3.1",
            "# TYPE beekon_fleet_behind gauge", "beekon_fleet_behind 1",
            "# TYPE beekon_fleet_behind_seconds_total counter", "beekon_fleet_behind_seconds_total 12.34",
        ] {
            #expect(text.contains("\n\(line)\n"), "\(line)")
        }
        let unmeasured = PrometheusText.render(Self.snapshot(FleetPace(warp: 60)))
        #expect(!unmeasured.contains("beekon_fleet_achieved_warp"), "an achieved warp not measured is not reported")
        #expect(unmeasured.contains("\nbeekon_fleet_behind 0\n"))
    }

    @Test("the report and its summary say how long the run was behind and its lowest achieved warp")
    func report() {
        let body = RunReportBody(Self.snapshot(Self.behind))
        #expect(
            APIBodyTests.text(body.pace, keys: .snakeCase)
                == #"{"behind_seconds":12.3,"min_achieved_warp":38.46,"behind":true}"#)
        #expect(RunSummary.paceLine(body.pace) == "behind its warp for 12.3s real (lowest achieved warp 38×)")
        var kept = FleetPace(warp: 60)
        kept.minAchievedWarp = 59.5
        #expect(
            RunSummary.paceLine(RunReportBody(Self.snapshot(kept)).pace)
                == "kept up with its warp (lowest achieved warp 60×)")
        #expect(RunSummary.paceLine(RunReportBody(Self.snapshot(Self.atMaxWarp)).pace) == nil)
    }
}
