import FleetEngine
import FleetTestSupport
import Foundation
import Testing

@testable import FleetReport

/// The server's real answer time beside the devices' virtual latency, the run's timing and the
/// fleet's own doing (not sent, held back, cancelled, warp-timeouts, waits) in the report, its
/// summary, CSV and HTML, from a `FleetMetrics` made in `FleetHealthExample` (the engine's
/// counting: `FixAccountingTests`; `/metrics` and the API: `FleetHealthAPITests`).
@Suite("Server latency and fleet health in the report")
struct FleetHealthReportTests {
    @Test(
        "the report has the server's real latency per group beside the heard one, the timing, and fleet health",
        arguments: [(true, "modelled"), (false, "as-answered")])
    func report(deterministic: Bool, timing: String) throws {
        let snapshot = FleetHealthExample.snapshot(deterministic: deterministic)
        let metrics = snapshot.metrics
        let body = RunReportBody(snapshot)
        #expect(body.timing.rawValue == timing)
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(APIJSON.bytes(body))) as? [String: Any])
        #expect(json["timing"] as? String == timing)
        let server = try #require(json["server_latency_ms"] as? [String: Double])
        #expect(server["max"] == Rounding.millis(metrics.serverLatency.max))
        #expect(server["p99"] == Rounding.millis(metrics.serverLatency.percentile(0.99)))
        #expect(abs(server["max"]! - 900) < 9, "the unheard answer is the server's slowest")
        let groups = try #require(json["groups"] as? [String: [String: Any]])
        for (index, name) in snapshot.groups.enumerated() {
            let group = try #require(groups[name]?["server_latency_ms"] as? [String: Double])
            let histogram = metrics.uploadsByGroup[index].serverLatency
            #expect(group["p50"] == Rounding.millis(histogram.percentile(0.5)), "\(name)")
            #expect(group["max"] == Rounding.millis(histogram.max), "\(name)")
        }
        let health = try #require(json["fleet_health"] as? [String: Any])
        #expect(health["not_sent"] as? [String: Int] == ["connection-cap": 3, "descriptors": 0, "source-address": 0])
        #expect(health["held_back"] as? Int == 7)
        #expect(health["cancelled_on_wire"] as? Int == 4)
        #expect(health["warp_timeouts"] as? Int == 2)
        #expect(health["answer_wait_seconds"] as? Double == 3.3)
        #expect(health["behind_seconds"] as? Double == 1.5)
        let wait = try #require(health["connection_wait_ms"] as? [String: Double])
        #expect(wait["max"] == Rounding.millis(metrics.connectionWait.max))
    }

    @Test("the summary says the heard latency is virtual, the server's real, timeouts by whose, the fleet's own")
    func summary() {
        let snapshot = FleetHealthExample.snapshot()
        let metrics = snapshot.metrics
        let lines = RunSummary.lines(RunReportBody(snapshot))
        func ms(_ value: Double) -> String {
            value < 10 ? String(format: "%.2fms", value) : String(format: "%.0fms", value)
        }
        func percentiles(_ histogram: LatencyHistogram) -> String {
            "p50 \(ms(histogram.percentile(0.5)))  p90 \(ms(histogram.percentile(0.9)))  "
                + "p99 \(ms(histogram.percentile(0.99)))  max \(ms(histogram.max))"
        }
        let expected = [
            "  upload latency .... \(percentiles(metrics.latency)) (virtual, as heard; answers modelled)",
            "  server latency .... \(percentiles(metrics.serverLatency)) (real: the server's own time)",
            "  timeouts .......... timeout 1 (the server's), injected-timeout 1 (a fault), warp-timeout 2 "
                + "(the fleet's), not-sent-connection-cap 3 (the fleet's)",
            "  fleet health ...... the fleet's own, not the server's: not sent 3 (connection-cap 3), held back 7 "
                + "by the connection cap (waited p99 \(ms(metrics.connectionWait.percentile(0.99))) max "
                + "\(ms(metrics.connectionWait.max)) real), cancelled on the wire 4, warp-timeouts 2, behind its "
                + "warp 1.5s real",
            "  answer wait ....... the clock waited 3.3s real for the server's answers (modelled timing yields to "
                + "the server rather than falling behind)",
            "    server latency .... \(percentiles(metrics.uploadsByGroup[1].serverLatency)) "
                + "(real: the server's own time)",
        ]
        for line in expected { #expect(lines.contains(line), "\(line)\n\(lines.joined(separator: "\n"))") }
        let asAnswered = RunSummary.lines(RunReportBody(FleetHealthExample.snapshot(deterministic: false)))
        #expect(asAnswered.contains { $0.hasSuffix("(virtual, as heard: real × warp)") })
    }

    @Test("a healthy run has no fleet-health or timeouts line, and says when the server answered nothing")
    func quietSummary() {
        var snapshot = FleetSnapshot()
        snapshot.metrics.uploads.record(.status(200), latencyMillis: 100, serverMillis: nil, realNanos: 0)
        let lines = RunSummary.lines(RunReportBody(snapshot))
        #expect(
            !lines.contains { $0.contains("fleet health") || $0.contains("timeouts") || $0.contains("answer wait") })
        #expect(lines.contains("  server latency .... no upload answered"))
    }

    @Test("CSV: server latency columns per group and outcome, in real ms; the fleet's health a row per figure")
    func csv() throws {
        let snapshot = FleetHealthExample.snapshot()
        let metrics = snapshot.metrics
        let rows = RunCSV.stats(snapshot).split(separator: "\r\n").map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        let header = try #require(rows.first)
        let serverMax = try #require(header.firstIndex(of: "Server Latency Max (real ms)"))
        #expect(header.contains("Latency p99 (virtual ms)"))
        let aggregated = try #require(rows.last)
        #expect(aggregated.prefix(2) == ["Aggregated", "Aggregated"])
        #expect(Double(aggregated[serverMax]) == (metrics.serverLatency.max * 1000).rounded() / 1000)
        let drivers = try #require(rows.first { $0.prefix(2) == ["drivers", "Aggregated"] })
        #expect(Double(drivers[serverMax]) == (metrics.uploadsByGroup[1].serverLatency.max * 1000).rounded() / 1000)
        let notSent = try #require(rows.first { $0.prefix(2) == ["walkers", "not-sent-connection-cap"] })
        #expect(notSent[3] == "2")
        #expect(notSent[serverMax] == "0", "never on the wire: no server time")

        let health = RunCSV.fleetHealth(snapshot).split(separator: "\r\n").map(String.init)
        #expect(
            health == [
                "Figure,Value,Unit", "Not Sent connection-cap,3,uploads", "Not Sent descriptors,0,uploads",
                "Not Sent source-address,0,uploads",
                "Held Back,7,requests",
                "Connection Wait p99,\(RunCSVTestsFormat.decimal(metrics.connectionWait.percentile(0.99))),real ms",
                "Connection Wait Max,\(RunCSVTestsFormat.decimal(metrics.connectionWait.max)),real ms",
                "Cancelled on the Wire,4,requests", "Warp Timeouts,2,uploads", "Answer Wait,3.25,real s",
                "Behind Its Warp,1.5,real s",
            ])
        #expect(RunCSV.files(snapshot).map(\.suffix).contains("_fleet_health.csv"))
    }

    @Test("the HTML report has the latency table on both clocks and the fleet-health table")
    func html() {
        let snapshot = FleetHealthExample.snapshot()
        let page = RunHTML.page(RunReportBody(snapshot), snapshot: snapshot, chartsScript: "")
        for text in [
            "<h2>Latency: as heard (virtual) and the server's (real)</h2>", "<th>Server p50 real ms</th>",
            "<td>drivers</td>", "<h2>Fleet health</h2>", "<td>Not sent: connection-cap (uploads)</td>",
            "<td>Held back by the connection cap (requests)</td><td class=\"num\">7</td>",
            "<td>Warp timeouts (uploads)</td><td class=\"num\">2</td>", "answers were modelled",
        ] {
            #expect(page.contains(text), "\(text)")
        }
    }

    @Test("a shard's record carries its timing; merged shards keep it only when they agree")
    func recordTiming() throws {
        let modelled = RunRecord(
            FleetHealthExample.snapshot(), shard: try Shard(index: 0, count: 2), end: nil, abortedBy: nil)
        var other = RunRecord(
            FleetHealthExample.snapshot(deterministic: false), shard: try Shard(index: 1, count: 2), end: nil,
            abortedBy: nil)
        #expect(modelled.snapshot.deterministic)
        #expect(try RunRecord.merged([("a", modelled), ("b", other)]).deterministic == nil)
        other.deterministic = true
        #expect(try RunRecord.merged([("a", modelled), ("b", other)]).snapshot.deterministic)
    }
}

/// The CSV's number form, as `RunCSV` writes it.
enum RunCSVTestsFormat {
    static func decimal(_ value: Double) -> String {
        let rounded = (value * 1000).rounded() / 1000
        return rounded == rounded.rounded() ? String(Int64(rounded)) : String(rounded)
    }
}
