import FleetEngine
import FleetTestSupport
import Testing

@testable import FleetReport

/// The run's pace as the run report and its summary say it, from a made-up `FleetPace`
/// (`PaceExample`; the API and `/metrics`: `PaceExportTests`).
@Suite("Pace in the report")
struct PaceReportTests {
    @Test("the report and its summary say how long the run was behind and its lowest achieved warp")
    func report() {
        let body = RunReportBody(PaceExample.snapshot(PaceExample.behind))
        #expect(
            APIJSON.text(body.pace, keys: .snakeCase)
                == #"{"behind_seconds":12.3,"min_achieved_warp":38.46,"behind":true}"#)
        #expect(RunSummary.paceLine(body.pace) == "behind its warp for 12.3s real (lowest achieved warp 38×)")
        var kept = FleetPace(warp: 60)
        kept.minAchievedWarp = 59.5
        #expect(
            RunSummary.paceLine(RunReportBody(PaceExample.snapshot(kept)).pace)
                == "kept up with its warp (lowest achieved warp 60×)")
        #expect(RunSummary.paceLine(RunReportBody(PaceExample.snapshot(PaceExample.atMaxWarp)).pace) == nil)
    }
}
