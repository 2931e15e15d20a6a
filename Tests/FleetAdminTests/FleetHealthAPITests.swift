import FleetEngine
import FleetTestSupport
import Testing

@testable import FleetAdmin
@testable import FleetReport

/// The server's real answer time beside the devices' virtual latency, the run's timing and the
/// fleet's own doing in `/metrics` and `GET /api/v1/stats` and `/fleet`, from a `FleetMetrics`
/// made in `FleetHealthExample` (the report, its summary, CSV and HTML: `FleetHealthReportTests`).
@Suite("Server latency and fleet health in /metrics and the API")
struct FleetHealthAPITests {
    @Test("/metrics: the server's latency per group, not-sent by cause, held back, cancelled, answer wait")
    func prometheus() throws {
        let snapshot = FleetHealthExample.snapshot()
        let metrics = snapshot.metrics
        let text = PrometheusText.render(snapshot)
        for (index, name) in snapshot.groups.enumerated() {
            let count = metrics.uploadsByGroup[index].serverLatency.count
            #expect(text.contains("\nbeekon_fleet_upload_server_latency_seconds_count{group=\"\(name)\"} \(count)\n"))
        }
        #expect(text.contains("\nbeekon_fleet_upload_server_latency_seconds_bucket{group=\"drivers\",le=\"+Inf\"} 2\n"))
        #expect(text.contains("\nbeekon_fleet_upload_server_latency_seconds_bucket{group=\"walkers\",le=\"0.05\"} 2\n"))
        for line in [
            "# TYPE beekon_fleet_uploads_not_sent_total counter",
            "beekon_fleet_uploads_not_sent_total{cause=\"connection-cap\"} 3",
            "beekon_fleet_uploads_not_sent_total{cause=\"descriptors\"} 0",
            "# TYPE beekon_fleet_requests_held_back_total counter", "beekon_fleet_requests_held_back_total 7",
            "# TYPE beekon_fleet_requests_cancelled_on_wire_total counter",
            "beekon_fleet_requests_cancelled_on_wire_total 4",
            "# TYPE beekon_fleet_answer_wait_seconds_total counter", "beekon_fleet_answer_wait_seconds_total 3.25",
        ] {
            #expect(text.contains("\n\(line)\n"), "\(line)")
        }
    }

    @Test("GET /api/v1/stats has the run's heard and server latency, the timing and fleet health; /fleet the timing")
    func stats() throws {
        let snapshot = FleetHealthExample.snapshot()
        let metrics = snapshot.metrics
        let body = StatsBody(snapshot)
        #expect(APIJSON.text(body.timing) == #""modelled""#)
        #expect(APIJSON.text(body.serverLatencyMs) == APIJSON.text(PercentilesBody(metrics.serverLatency)))
        #expect(APIJSON.text(body.latencyMs) == APIJSON.text(PercentilesBody(metrics.latency)))
        let wait = APIJSON.text(PercentilesBody(metrics.connectionWait))
        #expect(
            APIJSON.text(body.fleetHealth)
                == #"{"notSent":{"connection-cap":3,"descriptors":0,"source-address":0},"heldBack":7,"#
                + #""connectionWaitMs":"#
                + wait
                + #","cancelledOnWire":4,"warpTimeouts":2,"answerWaitSeconds":3.3,"behindSeconds":1.5}"#)
        #expect(FleetSummaryBody(snapshot).timing == .modelled)
        #expect(FleetSummaryBody(FleetHealthExample.snapshot(deterministic: false)).timing == .asAnswered)
    }
}
