import FleetEngine
import FleetTestSupport
import Testing

@testable import FleetAdmin
@testable import FleetReport

/// The run's pace as the admin API and `/metrics` say it, from a made-up `FleetPace`
/// (`PaceExample`; the measurement itself: `PaceMeterTests`; a real run: `AdminRealFleetTests`;
/// the report: `PaceReportTests`).
@Suite("Pace in the API and /metrics")
struct PaceExportTests {
    @Test("GET /api/v1/fleet's pace: the warp set (null at max warp), the achieved warp, lateness and the verdict")
    func fleetSummary() {
        let behind = APIJSON.text(FleetSummaryBody(PaceExample.snapshot(PaceExample.behind)).pace)
        #expect(
            behind
                == #"{"warp":60,"achievedWarp":41.23,"timerLatenessP99Ms":2300.5,"timerLatenessMaxMs":3100,"#
                + #""behind":true,"behindSeconds":12.3}"#)
        let max = APIJSON.text(FleetSummaryBody(PaceExample.snapshot(PaceExample.atMaxWarp)).pace)
        #expect(
            max
                == #"{"warp":null,"achievedWarp":1250,"timerLatenessP99Ms":0,"timerLatenessMaxMs":0,"#
                + #""behind":false,"behindSeconds":0}"#)
    }

    @Test("/metrics has the achieved warp, the windowed lateness and behind as gauges, with HELP and TYPE")
    func prometheus() {
        let text = PrometheusText.render(PaceExample.snapshot(PaceExample.behind))
        for line in [
            "# TYPE beekon_fleet_achieved_warp gauge", "beekon_fleet_achieved_warp 41.234",
            "# TYPE beekon_fleet_timer_lateness_p99_seconds gauge", "beekon_fleet_timer_lateness_p99_seconds 2.3005",
            "# TYPE beekon_fleet_timer_lateness_max_seconds gauge", "beekon_fleet_timer_lateness_max_seconds 3.1",
            "# TYPE beekon_fleet_behind gauge", "beekon_fleet_behind 1",
            "# TYPE beekon_fleet_behind_seconds_total counter", "beekon_fleet_behind_seconds_total 12.34",
        ] {
            #expect(text.contains("\n\(line)\n"), "\(line)")
        }
        let unmeasured = PrometheusText.render(PaceExample.snapshot(FleetPace(warp: 60)))
        #expect(!unmeasured.contains("beekon_fleet_achieved_warp"), "an achieved warp not measured is not reported")
        #expect(unmeasured.contains("\nbeekon_fleet_behind 0\n"))
    }
}
