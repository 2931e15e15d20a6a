import Foundation
import Synchronization
import Testing

/// The SDK's `syncStatus` and `authChanges` streams reach the admin API: a device's recent values
/// in its detail, the notable ones as `sdk` live events.
@Suite("SDK streams in the admin API")
struct StreamEventsTests {
    @Test("a device whose upload hangs lists its retry in `streams` and the live events carry it as `sdk`")
    func retryInDetailAndEvents() async throws {
        // walkers-0001's first upload hangs (heard as a timeout 30 s later); every other is answered.
        let hung = Mutex(false)
        let harness = try AdminHarness(
            fleet: .simulated { request in
                guard request.device == "walkers-0001", case .upload = request.kind else { return .ok }
                return hung.withLock { hung in
                    defer { hung = true }
                    return hung ? .ok : .hang
                }
            })
        let runtime = harness.simulated
        let opened = Mutex(false)
        let stream = await harness.readStream("/api/v1/events") { raw in
            if !opened.withLock({ opened in
                defer { opened = true }
                return opened
            }) {
                runtime.advance(byMillis: 120_000)
            }
            return AdminServerTests.dechunked(raw).contains("event: sdk\n")
        }
        let body = AdminServerTests.dechunked(stream)
        let event = try #require(
            body.components(separatedBy: "\n\n").first { $0.hasPrefix("event: sdk\n") }, "no sdk event: \(body)")
        let data = try #require(event.split(separator: "\n").last { $0.hasPrefix("data: ") }).dropFirst(6)
        let record = try #require(try JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any])
        #expect(record["device"] as? String == "walkers-0001")
        #expect(record["stream"] as? String == "syncStatus")
        #expect(record["status"] as? String == "retrying")
        #expect(record["attempt"] as? Int == 1)

        let detail = await harness.call("GET", "/api/v1/devices/walkers-0001")
        let streams = try #require(detail.object["streams"] as? [[String: Any]])
        let retrying = try #require(streams.first { $0["status"] as? String == "retrying" })
        #expect(retrying["at"] as? String == record["at"] as? String)
        #expect(retrying["nextAt"] as? String == record["nextAt"] as? String)
        #expect(retrying["device"] == nil, "the detail names the device once, at its top")
        let times = streams.compactMap { $0["at"] as? String }
        #expect(times == times.sorted(by: >), "most recent first: \(times)")
        // A device answered at once went in flight and succeeded, and no event was made of it.
        let other = await harness.call("GET", "/api/v1/devices/walkers-0002")
        let statuses = (other.object["streams"] as? [[String: Any]] ?? []).compactMap { $0["status"] as? String }
        #expect(statuses.contains("inFlight") && statuses.contains("succeeded"), "\(statuses)")
        #expect(!body.contains(#""device":"walkers-0002""#))
    }
}

extension StreamEventsTests {
    @Test("a devices event carries at most 500 changes, says truncated, and the rest follow in the next")
    func devicesEventsCarryTheRest() async throws {
        // Few stores open at once: with 600 open (1,200 descriptors) beside them, other tests'
        // `Process.run()` crashed now and then (Foundation 6.3.1 over-reads a full /proc/self/fd
        // listing, swift-corelibs-foundation #5472).
        let harness = try AdminHarness(devices: 600, maxOpenStores: 64)
        let stream = await harness.readStream("/api/v1/events", seconds: 20) { raw in
            AdminServerTests.dechunked(raw).components(separatedBy: "event: devices\n").count >= 3
        }
        let events = AdminServerTests.dechunked(stream).components(separatedBy: "\n\n")
            .filter { $0.hasPrefix("event: devices\n") }
            .compactMap { block -> [String: Any]? in
                guard let data = block.split(separator: "\n").last(where: { $0.hasPrefix("data: ") }) else {
                    return nil
                }
                return try? JSONSerialization.jsonObject(with: Data(data.dropFirst(6).utf8)) as? [String: Any]
            }
        try #require(events.count >= 2, "\(events.count) devices events")
        let first = try #require(events[0]["changes"] as? [[String: Any]])
        #expect(first.count == 500)
        #expect(events[0]["truncated"] as? Bool == true)
        let second = try #require(events[1]["changes"] as? [[String: Any]])
        #expect(events[1]["truncated"] == nil)
        let ids = Set((first + second).compactMap { $0["id"] as? String })
        #expect(ids.count == 600, "every device listed once across the two events")
    }
}

extension StreamEventsTests {
    @Test(
        """
        DELETE /api/v1/stats starts the statistics over from now; the run's own figures (the fleet's \
        batches by outcome, /metrics' counters) keep theirs
        """)
    func resetStatistics() async throws {
        let harness = try AdminHarness()
        harness.simulated.advance(byMillis: 10 * 60_000)
        let before = await harness.call("GET", "/api/v1/stats").object
        let counted = (before["outcomes"] as? [[String: Any]] ?? []).compactMap { $0["count"] as? Int }.reduce(0, +)
        #expect(counted > 0)
        #expect(before["since"] is NSNull)
        // The fleet's own series; the process's (CPU, memory) move on their own.
        func fleetSeries(_ text: String) -> [Substring] {
            text.split(separator: "\n").filter { $0.hasPrefix("beekon_fleet_") }
        }
        let metrics = fleetSeries(await harness.call("GET", "/metrics").text)
        let reset = await harness.call("DELETE", "/api/v1/stats")
        #expect(reset.status == 200)
        #expect((reset.object["outcomes"] as? [Any])?.isEmpty == true, "\(reset.text)")
        #expect(reset.object["since"] as? String == "2026-06-15T08:10:00.000Z", "\(reset.text)")
        let fleet = await harness.call("GET", "/api/v1/fleet").object
        let batches = (fleet["batches"] as? [String: Any])?["byOutcome"] as? [String: Int] ?? [:]
        #expect(batches.values.reduce(0, +) == counted, "the fleet's own counts keep the whole run")
        #expect(fleetSeries(await harness.call("GET", "/metrics").text) == metrics, "/metrics' counters never reset")
        harness.simulated.advance(byMillis: 10 * 60_000)
        let after = await harness.call("GET", "/api/v1/stats").object
        let since = (after["outcomes"] as? [[String: Any]] ?? []).compactMap { $0["count"] as? Int }.reduce(0, +)
        #expect(since > 0 && since < counted + since, "only what came after the reset: \(since)")
        let total = await harness.call("GET", "/api/v1/fleet").object
        let all = ((total["batches"] as? [String: Any])?["byOutcome"] as? [String: Int] ?? [:]).values.reduce(0, +)
        #expect(all == counted + since)
    }
}
