import BeekonDevice
import FleetAdmin
import FleetRuntime
import Foundation
import InMemoryLogging
import Logging
import Synchronization
import Testing

/// The admin REST API over real HTTP (the server on port 0, a libcurl client) in front of the
/// simulated fleet: every endpoint, its bad input and the token rule. Virtual time moves only
/// when a test advances it, and the network answers as the test says, so what the API shows is
/// asserted at exact virtual instants.
@Suite("Admin server", .serialized)
struct AdminServerTests {
    typealias Change = AdminHarness.Change

    /// `start` plus `offset` ms, as the API writes instants.
    static func time(_ offset: Int64) -> String { AdminHarness.time(offset) }

    /// The fixes an upload carries.
    static func fixes(_ request: SimulatedRequest) throws -> Int {
        let body = try #require(try JSONSerialization.jsonObject(with: Data(request.http.body)) as? [String: Any])
        return try #require(body["locations"] as? [Any]).count
    }

    static func batchID(_ request: SimulatedRequest) -> String? {
        guard case .upload(let id) = request.kind else { return nil }
        return id.text
    }

    // MARK: The fleet

    @Test(
        "GET /api/v1/fleet describes the fleet at the virtual instant it reached, and counts what the network answered")
    func fleetSummary() async throws {
        let harness = try AdminHarness()
        harness.simulated.advance(byMillis: 10_000)
        let answer = await harness.call("GET", "/api/v1/fleet")
        #expect(answer.status == 200)
        let fleet = answer.object
        #expect(fleet["name"] as? String == "admin-test")
        #expect(fleet["devices"] as? Int == 4)
        #expect(fleet["groups"] as? [String] == ["walkers"])
        #expect(fleet["byPlatform"] as? [String: Int] == ["ios": 4])
        #expect(fleet["byGroup"] as? [String: Int] == ["walkers": 4])
        #expect(fleet["byState"] as? [String: Int] == ["tracking": 4])
        #expect(fleet["warp"] as? Double == 120)
        #expect(fleet["paused"] as? Bool == false)
        #expect(fleet["virtualTime"] as? String == "2026-06-15T08:00:10.000Z")
        #expect(fleet["virtualTimeMillis"] as? Int == Int(AdminHarness.start + 10_000))
        #expect(fleet["endsAt"] is NSNull && fleet["endsAtMillis"] is NSNull, "no virtual-time limit: \(answer.text)")
        // Every upload sent by now was answered 200, 80 virtual ms later.
        let sent = harness.uploadsSent
        #expect(
            !sent.isEmpty && sent.allSatisfy { $0.sentAt + AdminHarness.latencyMillis <= AdminHarness.start + 10_000 })
        let batches = fleet["batches"] as? [String: Any] ?? [:]
        #expect(batches["sent"] as? Int == sent.count)
        #expect(batches["byOutcome"] as? [String: Int] == ["200": sent.count])
        let fixes = (fleet["fixes"] as? [String: Any] ?? [:]).compactMapValues { $0 as? Int }
        #expect(fixes["acknowledged"] == (try sent.map(Self.fixes).reduce(0, +)))
        #expect(fixes["admitted"] == (fixes["acknowledged"] ?? 0) + (fixes["pending"] ?? 0))
        #expect(fixes["unaccounted"] == 0 && fixes["lost"] == 0 && fixes["carriedOver"] == 0)
    }

    @Test(
        """
        GET /api/v1/report is the run's report live: the fix accounting adds up, uploads by outcome, the \
        thresholds as they stand, per group; no end, exit code or digest until the run is over
        """)
    func liveReport() async throws {
        let harness = try AdminHarness()
        harness.simulated.advance(byMillis: 60_000)
        let answer = await harness.call("GET", "/api/v1/report")
        #expect(answer.status == 200)
        let report = answer.object
        #expect(report["name"] as? String == "admin-test")
        #expect(report["started_at"] as? String == "2026-06-15T08:00:00.000Z")
        #expect(report["virtual_seconds"] as? Double == 60)
        #expect(report["ended_by"] is NSNull && report["exit_code"] is NSNull && report["digest"] is NSNull)
        let fixes = try #require(report["fixes"] as? [String: Int])
        // Answered by now: sent at least the answer's latency ago.
        let sent = harness.uploadsSent.filter { $0.sentAt + AdminHarness.latencyMillis <= AdminHarness.start + 60_000 }
        #expect(fixes["acknowledged"] == (try sent.map(Self.fixes).reduce(0, +)) && fixes["acknowledged"]! > 0)
        #expect(fixes["admitted"] == fixes["acknowledged"]! + fixes["pending"]!)
        #expect(fixes["unaccounted"] == 0)
        let uploads = try #require(report["uploads"] as? [String: Any])
        #expect(uploads["total"] as? Int == sent.count)
        let ok = (uploads["by_outcome"] as? [String: [String: Any]])?["200"]
        #expect(ok?["count"] as? Int == sent.count && ok?["rate"] as? Double == 1)
        // No threshold given: the defaults, reported, not counted.
        #expect(report["thresholds_count"] as? Bool == false)
        #expect(
            (report["thresholds"] as? [[String: Any]])?.map { $0["expression"] as? String } == [
                "fixes.lost == 0", "upload.errors.rate < 0.05",
            ])
        let groups = try #require(report["groups"] as? [String: [String: Any]])
        #expect(Array(groups.keys) == ["walkers"])
        #expect(groups["walkers"]?["devices"] as? Int == 4)
        #expect(groups["walkers"]?["fixes"] as? [String: Int] == fixes)
        // Each device's store says where its own fixes went; the devices add up to the fleet.
        var sum = [String: Int]()
        for id in ["walkers-0001", "walkers-0002", "walkers-0003", "walkers-0004"] {
            let own = try #require(await harness.device(id)["fixes"] as? [String: Int], "\(id)")
            #expect(own["admitted"] == own["acknowledged"]! + own["pending"]!, "\(id): \(own)")
            sum.merge(own, uniquingKeysWith: +)
        }
        #expect(sum["admitted"] == fixes["admitted"] && sum["pending"] == fixes["pending"])
    }

    @Test(
        """
        GET /api/v1/faults lists the timeline as it stands, and DELETE /api/v1/faults/{fault} ends an \
        active one now: its opposite runs, it is done, and a fault that is not on is 409, one not there 404
        """)
    func faultTimeline() async throws {
        let faults = """
            faults:
              - {at: 1m, for: 10m, select: all, action: networkOffline}
              - {at: 30m, select: all, action: sync}
            """
        let harness = try AdminHarness(faults: faults)
        harness.simulated.advance(byMillis: 2 * 60_000)
        let listed = await harness.call("GET", "/api/v1/faults")
        #expect(listed.status == 200)
        let timeline = try #require(listed.object["faults"] as? [[String: Any]])
        #expect(timeline.map { $0["phase"] as? String } == ["active", "upcoming"])
        #expect(timeline[0]["endsAt"] as? String == "2026-06-15T08:11:00.000Z")
        #expect(timeline[0]["applied"] as? Int == 4 && timeline[0]["endable"] as? Bool == true)
        #expect(timeline[1]["applied"] is NSNull && timeline[1]["endable"] as? Bool == false)
        let sentBefore = harness.simulated.sent.count
        let ended = await harness.call("DELETE", "/api/v1/faults/0")
        #expect(ended.status == 200, "\(ended.text)")
        let now = try #require(ended.object["faults"] as? [[String: Any]])
        #expect(now[0]["phase"] as? String == "done")
        #expect(now[0]["endedEarlyAt"] as? String == "2026-06-15T08:02:00.000Z")
        #expect(now[0]["endsAt"] as? String == "2026-06-15T08:02:00.000Z")
        // Back online: the devices upload what they held at once.
        harness.simulated.advance(byMillis: 1_000)
        #expect(harness.simulated.sent.count > sentBefore)
        #expect(await harness.call("DELETE", "/api/v1/faults/0").status == 409)
        #expect(await harness.call("DELETE", "/api/v1/faults/1").status == 409)
        #expect(await harness.call("DELETE", "/api/v1/faults/7").status == 404)
        let bad = await harness.call("DELETE", "/api/v1/faults/first")
        #expect(bad.status == 400 && (bad.object["error"] as? [String: Any])?["field"] as? String == "fault")
    }

    @Test(
        """
        a fault applied through POST /api/v1/fleet/actions is listed as the timeline's are, with source \
        api: in activeFaults, GET /api/v1/faults and the report; its opposite ends it and its drain is reported
        """)
    func apiFaultIsListedAndDrained() async throws {
        let harness = try AdminHarness()
        harness.simulated.advance(byMillis: 2 * 60_000)
        let applied = await harness.call(
            "POST", "/api/v1/fleet/actions",
            body: #"{"action": "networkOffline", "selector": {"fraction": 0.5, "seed": 7}}"#)
        #expect(applied.status == 202, "\(applied.text)")
        let active = try #require(await harness.call("GET", "/api/v1/fleet").object["activeFaults"] as? [[String: Any]])
        #expect(active.count == 1)
        #expect(active.first?["source"] as? String == "api" && active.first?["action"] as? String == "networkOffline")
        let number = try #require(active.first?["fault"] as? Int)
        let listed = try #require(await harness.call("GET", "/api/v1/faults").object["faults"] as? [[String: Any]])
        #expect(listed.count == 1)
        #expect(listed.first?["source"] as? String == "api" && listed.first?["line"] is NSNull)
        #expect(listed.first?["phase"] as? String == "active" && listed.first?["endable"] as? Bool == true)
        #expect(listed.first?["startsAt"] as? String == "2026-06-15T08:02:00.000Z" && listed.first?["endsAt"] is NSNull)
        // A control, and a recovery, are no faults.
        #expect(
            await harness.call("POST", "/api/v1/fleet/actions", body: #"{"action": "sync", "selector": {"all": true}}"#)
                .status == 202)
        harness.simulated.advance(byMillis: 10 * 60_000)
        let online = await harness.call(
            "POST", "/api/v1/fleet/actions", body: #"{"action": "networkOnline", "selector": {"all": true}}"#)
        #expect(online.status == 202)
        #expect((await harness.call("GET", "/api/v1/fleet").object["activeFaults"] as? [Any])?.isEmpty == true)
        let done = try #require(await harness.call("GET", "/api/v1/faults").object["faults"] as? [[String: Any]])
        #expect(done.map { $0["phase"] as? String } == ["done"])
        #expect(done.first?["endsAt"] as? String == "2026-06-15T08:12:00.000Z")
        harness.simulated.advance(byMillis: 5 * 60_000)
        let report = await harness.call("GET", "/api/v1/report").object
        let faults = try #require(report["faults"] as? [[String: Any]])
        #expect(faults.map { $0["source"] as? String } == ["api"] && faults.first?["fault"] as? Int == number)
        #expect(faults.first?["ends_at"] as? String == "2026-06-15T08:12:00.000Z")
        let drains = try #require(report["drains"] as? [[String: Any]])
        #expect(drains.count == 1 && drains.first?["source"] as? String == "api")
        #expect(drains.first?["ended_at"] as? String == "2026-06-15T08:12:00.000Z")
        #expect(drains.first?["drain_ms"] is Int, "\(drains)")
        // Ended: End now has nothing to end.
        #expect(await harness.call("DELETE", "/api/v1/faults/\(number)").status == 409)
    }

    @Test("GET /api/v1/fleet says when a run with a virtual duration ends, and virtual time stops there")
    func fleetSummaryEndsAt() async throws {
        let harness = try AdminHarness(duration: "10m")
        let fleet = await harness.call("GET", "/api/v1/fleet").object
        #expect(fleet["endsAt"] as? String == "2026-06-15T08:10:00.000Z")
        #expect(fleet["endsAtMillis"] as? Int == Int(AdminHarness.start + 10 * 60_000))
        harness.simulated.advance(byMillis: 11 * 60_000)
        let ended = await harness.call("GET", "/api/v1/fleet").object
        #expect(ended["virtualTimeMillis"] as? Int == Int(AdminHarness.start + 10 * 60_000))
    }

    @Test("PATCH /api/v1/fleet sets the warp and pauses virtual time: while paused, time and uploads stand still")
    func patchFleet() async throws {
        let harness = try AdminHarness()
        harness.simulated.advance(byMillis: 10_000)
        let patched = await harness.call("PATCH", "/api/v1/fleet", body: #"{"warp": 30, "paused": true}"#)
        #expect(patched.status == 200)
        #expect(patched.object["warp"] as? Double == 30)
        #expect(patched.object["paused"] as? Bool == true)
        #expect(await harness.call("GET", "/metrics").text.contains("\nbeekon_fleet_warp 30.0\n"))
        let sent = harness.simulated.sent.count
        harness.simulated.advance(byMillis: 60_000)
        #expect(
            await harness.call("GET", "/api/v1/fleet").object["virtualTimeMillis"] as? Int
                == Int(AdminHarness.start + 10_000))
        #expect(harness.simulated.sent.count == sent, "a paused fleet sent uploads")

        let resumed = await harness.call("PATCH", "/api/v1/fleet", body: #"{"paused": false}"#)
        #expect(resumed.object["paused"] as? Bool == false && resumed.object["warp"] as? Double == 30)
        harness.simulated.advance(byMillis: 60_000)
        #expect(
            await harness.call("GET", "/api/v1/fleet").object["virtualTimeMillis"] as? Int
                == Int(AdminHarness.start + 70_000))
        #expect(harness.simulated.sent.count > sent)
    }

    @Test(
        """
        PATCH /api/v1/fleet with devices scales the fleet: fewer stops the newest (listed as stopped, \
        standing by), more starts them again; a count out of range or too many new at once is refused
        """)
    func patchFleetDevices() async throws {
        let harness = try AdminHarness()
        harness.simulated.advance(byMillis: 10_000)
        let down = await harness.call("PATCH", "/api/v1/fleet", body: #"{"devices": 1}"#)
        #expect(down.status == 200, "\(down.text)")
        #expect(down.object["targetDevices"] as? Int == 1)
        #expect(down.object["byState"] as? [String: Int] == ["stopped": 3, "tracking": 1])
        #expect(await harness.states()["walkers-0001"] == "tracking")
        let up = await harness.call("PATCH", "/api/v1/fleet", body: #"{"devices": 4}"#)
        #expect(up.object["byState"] as? [String: Int] == ["tracking": 4], "\(up.text)")
        #expect(up.object["devices"] as? Int == 4, "the stopped ones started again; none was made")
        for (body, status) in [
            (#"{"devices": -1}"#, 400), (#"{"devices": 100001}"#, 400), (#"{"devices": "many"}"#, 400),
            // A count the API takes, but more new devices than one command makes: a conflict with now.
            (#"{"devices": 20000}"#, 409),
        ] {
            let refused = await harness.call("PATCH", "/api/v1/fleet", body: body)
            #expect(refused.status == status, "\(body): \(refused.text)")
            #expect((refused.object["error"] as? [String: Any])?["field"] as? String == "devices", "\(body)")
        }
        #expect(await harness.call("GET", "/api/v1/fleet").object["targetDevices"] as? Int == 4)
    }

    @Test(
        """
        PATCH /api/v1/fleet with warp max: max warp and modelled timing from the time reached, so \
        every answer takes 100 virtual ms; a rate ends max warp and the timing stays modelled
        """
    )
    func patchFleetMaxWarp() async throws {
        // As answered at warp 120, this server's 80 ms are 9.6 virtual s.
        let harness = try AdminHarness(fleet: .simulated { _ in .respond(status: 200, afterMillis: 80) })
        harness.simulated.advance(byMillis: 60_000)
        let before = await harness.call("GET", "/api/v1/fleet").object
        #expect(before["maxWarp"] as? Bool == false && before["deterministic"] as? Bool == false)
        let sentBefore = harness.uploadsSent.count
        #expect(sentBefore > 0)

        let patched = await harness.call("PATCH", "/api/v1/fleet", body: #"{"warp": "max"}"#)
        #expect(patched.status == 200, "\(patched.text)")
        #expect(patched.object["maxWarp"] as? Bool == true && patched.object["deterministic"] as? Bool == true)
        #expect(await harness.call("GET", "/metrics").text.contains("\nbeekon_fleet_max_warp 1\n"))
        harness.simulated.advance(byMillis: 60_000)
        let after = harness.uploadsSent.dropFirst(sentBefore)
        #expect(!after.isEmpty)
        var heard = 0
        for request in after {
            let uploads = await harness.call("GET", "/api/v1/devices/\(request.device)/uploads").object
            let records = uploads["uploads"] as? [[String: Any]] ?? []
            guard let record = records.first(where: { $0["batchId"] as? String == Self.batchID(request) }) else {
                continue  // still out
            }
            #expect(record["latencyMs"] as? Double == 100, "\(record)")
            heard += 1
        }
        #expect(heard > 0, "no upload sent at max warp was heard")

        let rate = await harness.call("PATCH", "/api/v1/fleet", body: #"{"warp": 30}"#)
        #expect(rate.status == 200)
        #expect(rate.object["maxWarp"] as? Bool == false && rate.object["warp"] as? Double == 30)
        #expect(rate.object["deterministic"] as? Bool == true)
    }

    @Test("every answer is logged at debug level: a refusal with its reason, and never the token")
    func answersAreLogged() async throws {
        let handler = InMemoryLogHandler()
        var logger = Logger(label: "beekon-fleet admin") { _ in handler }
        logger.logLevel = .debug
        let harness = try AdminHarness(token: "s3cret-token", logger: logger)
        #expect(await harness.call("GET", "/api/v1/fleet").status == 200)
        #expect(await harness.call("PATCH", "/api/v1/fleet", body: #"{"warp": "fast"}"#).status == 400)
        #expect(await harness.call("GET", "/api/v1/fleet", token: "wrong").status == 401)
        let lines = handler.entries.map { "\($0.level) \($0.message)" }
        #expect(lines.contains("debug GET /api/v1/fleet: 200"), "\(lines)")
        #expect(
            lines.contains { $0.hasPrefix("debug PATCH /api/v1/fleet: 400 {") && $0.contains("`warp` must be") },
            "\(lines)")
        #expect(lines.contains { $0.hasPrefix("debug GET /api/v1/fleet: 401 {") }, "\(lines)")
        #expect(!lines.contains { $0.contains("s3cret") || $0.contains("wrong") }, "\(lines)")
    }

    @Test(
        "PATCH /api/v1/fleet refuses a bad body by field, and changes nothing",
        arguments: [
            (#"{"warp": -1}"#, "bad_request", "warp"),
            (#"{"warp": "fast"}"#, "bad_type", "warp"),
            (#"{"warp": "MAX"}"#, "bad_type", "warp"),
            (#"{"warp": true}"#, "bad_type", "warp"),
            (#"{"warp": 20000}"#, "bad_request", "warp"),
            (#"{"paused": "yes"}"#, "bad_type", "paused"),
            (#"{"speed": 2}"#, "unknown_field", "speed"),
            (#"{"warp": 2"#, "bad_request", nil),
            ("[1]", "bad_type", nil),
        ] as [(String, String, String?)])
    func patchFleetRefuses(body: String, code: String, field: String?) async throws {
        let harness = try AdminHarness()
        let answer = await harness.call("PATCH", "/api/v1/fleet", body: body)
        #expect(answer.status == 400 && answer.errorCode == code, "\(answer.text)")
        if let field { #expect(answer.errorField == field, "\(answer.text)") }
        let fleet = await harness.call("GET", "/api/v1/fleet").object
        #expect(fleet["warp"] as? Double == 120 && fleet["paused"] as? Bool == false)
    }

    // MARK: Devices

    @Test("GET /api/v1/devices filters, sorts and pages")
    func deviceList() async throws {
        let harness = try AdminHarness()
        harness.simulated.advance(byMillis: 1_000)
        let first = await harness.call("GET", "/api/v1/devices?limit=3")
        #expect(first.status == 200)
        #expect(first.object["total"] as? Int == 4)
        let page = first.object["devices"] as? [[String: Any]] ?? []
        #expect(page.map { $0["id"] as? String } == ["walkers-0001", "walkers-0002", "walkers-0003"])
        let summary = page.first ?? [:]
        for key in [
            "group", "platform", "model", "installId", "state", "alive", "permission", "locationServices", "network",
            "pending",
        ] {
            #expect(summary[key] != nil, "DeviceSummary lacks \(key)")
        }
        #expect(summary["state"] as? String == "tracking")
        #expect(summary["permission"] as? String == "granted" && summary["network"] as? String == "online")
        let cursor = try #require(first.object["next"] as? String)
        let second = await harness.call("GET", "/api/v1/devices?limit=3&cursor=\(cursor)")
        #expect((second.object["devices"] as? [[String: Any]])?.map { $0["id"] as? String } == ["walkers-0004"])
        #expect(second.object["next"] is NSNull)
        let descending = await harness.call("GET", "/api/v1/devices?sort=-id&limit=1")
        #expect((descending.object["devices"] as? [[String: Any]])?.first?["id"] as? String == "walkers-0004")
        for (query, total) in [
            ("q=0002", 1), ("state=track*&group=walkers", 4), ("state=paused*", 0), ("group=nobody", 0),
        ] {
            #expect(await harness.call("GET", "/api/v1/devices?\(query)").object["total"] as? Int == total, "\(query)")
        }
    }

    @Test(
        "GET /api/v1/devices refuses a bad sort, limit or cursor by field (a NUL in one does not cut it short)",
        arguments: [
            ("sort=colour", "sort"), ("sort=%00%3E", "sort"), ("sort=id%00x", "sort"), ("limit=0", "limit"),
            ("limit=1001x", "limit"), ("limit=5%00", "limit"), ("cursor=zzz", "cursor"),
        ])
    func deviceListRefuses(query: String, field: String) async throws {
        let harness = try AdminHarness()
        let answer = await harness.call("GET", "/api/v1/devices?\(query)")
        #expect(answer.status == 400 && answer.errorField == field, "\(answer.text)")
    }

    @Test(
        """
        GET /api/v1/devices/{id} shows the state history at exact instants, \
        sync, auth and config without any secret; an unknown id is 404
        """
    )
    func deviceDetail() async throws {
        let harness = try AdminHarness()
        harness.simulated.advance(byMillis: 10_000)
        let answer = await harness.call("GET", "/api/v1/devices/walkers-0001")
        #expect(answer.status == 200)
        let device = answer.object
        #expect(device["id"] as? String == "walkers-0001")
        // Spawned at the run's first instant.
        #expect(
            await harness.history("walkers-0001") == [
                Change(at: Self.time(0), state: "starting"), Change(at: Self.time(0), state: "tracking"),
            ])
        #expect((device["sync"] as? [String: Any])?["status"] as? String == "idle")
        #expect((device["sync"] as? [String: Any])?["consecutiveFailures"] as? Int == 0)
        #expect((device["auth"] as? [String: Any])?["state"] as? String == "none")
        // The uploads carry the header's value; the API shows it redacted.
        let sent = try #require(harness.uploadsSent.first { $0.device == "walkers-0001" })
        #expect(
            sent.http.head.headerFields.contains { $0.name.rawName == "X-Api-Key" && $0.value == "secret-header-value" }
        )
        let headers = ((device["config"] as? [String: Any])?["sync"] as? [String: Any])?["headers"] as? [String: String]
        #expect(headers == ["X-Api-Key": "[redacted]"])
        #expect(!answer.text.contains("secret-header-value"), "a secret header value leaked")
        let unknown = await harness.call("GET", "/api/v1/devices/nobody-0001")
        #expect(unknown.status == 404 && unknown.errorCode == "not_found")
    }

    @Test(
        """
        a device's uploads list what the network answered: the outcome, \
        heard at its send + the latency, with its request's batch and fixes
        """,
        arguments: [
            (SimulatedAnswer.respond(status: 200, afterMillis: 80), "200", 80, 0.667),
            (.respond(status: 503, afterMillis: 250), "503", 250, 2.083),
            (.fail(.reset, afterMillis: 700), "reset", 700, 5.833),
            // As answered at the harness's warp, a hang is the warp's timeout, not the server's.
            (.hang, "warp-timeout", 30_000, nil),
        ] as [(SimulatedAnswer, String, Int64, Double?)])
    func uploads(answer: SimulatedAnswer, outcome: String, latency: Int64, serverMillis: Double?) async throws {
        let harness = try AdminHarness(fleet: .simulated { _ in answer })
        harness.simulated.advance(byMillis: 60_000)
        let listed = await harness.call("GET", "/api/v1/devices/walkers-0001/uploads")
        #expect(listed.status == 200)
        // Newest first: the device's first upload is the last listed.
        let record = try #require((listed.object["uploads"] as? [[String: Any]])?.last)
        let request = try #require(harness.uploadsSent.first { $0.device == "walkers-0001" })
        #expect(record["outcome"] as? String == outcome)
        #expect(record["at"] as? String == Timestamp.text(unixMillis: request.sentAt + latency))
        #expect(record["latencyMs"] as? Double == Double(latency))
        // The server's own time: the virtual latency at warp 120, none when it never answered.
        if let serverMillis {
            #expect(record["serverMs"] as? Double == serverMillis)
        } else {
            #expect(record["serverMs"] is NSNull)
        }
        #expect(record["batchId"] as? String == Self.batchID(request))
        #expect(record["fixes"] as? Int == (try Self.fixes(request)))
        let unknown = await harness.call("GET", "/api/v1/devices/nobody/uploads")
        #expect(unknown.status == 404)
    }

    @Test("a device's stored locations are the fixes it has not uploaded; from, to and limit pick from them")
    func locations() async throws {
        let harness = try AdminHarness()
        harness.simulated.advance(byMillis: 10_000)
        // Offline, the device keeps what it takes.
        let offline = await harness.call(
            "POST", "/api/v1/devices/walkers-0001/actions", body: #"{"action": "networkOffline"}"#)
        #expect(offline.status == 202)
        let sent = harness.simulated.sent.count
        harness.simulated.advance(byMillis: 10_000)
        #expect(
            !harness.simulated.sent.dropFirst(sent).contains { $0.device == "walkers-0001" },
            "an offline device uploaded")
        let pending = await harness.device("walkers-0001")["pending"] as? Int ?? 0
        let all = await harness.call("GET", "/api/v1/devices/walkers-0001/locations")
        #expect(all.status == 200)
        let fixes = all.object["locations"] as? [[String: Any]] ?? []
        #expect(
            fixes.count == pending && pending > 10, "the store holds \(fixes.count), the device says \(pending) pending"
        )
        let instants = fixes.compactMap { ($0["timestamp"] as? String).flatMap(Timestamp.unixMillis(parsing:)) }
        #expect(instants == instants.sorted() && instants.last ?? 0 <= AdminHarness.start + 20_000)
        // Every fix taken while offline is there (one a second).
        #expect(
            Set(instants).isSuperset(
                of: stride(from: AdminHarness.start + 11_000, through: AdminHarness.start + 20_000, by: 1_000)))
        let fix = fixes.first ?? [:]
        for key in ["id", "timestamp", "latitude", "longitude", "accuracy", "speed", "trigger", "uploaded"] {
            #expect(fix[key] != nil, "a location lacks \(key)")
        }
        #expect(fixes.allSatisfy { $0["uploaded"] as? Bool == false })

        func listed(_ query: String) async -> [String] {
            let answer = await harness.call("GET", "/api/v1/devices/walkers-0001/locations?\(query)")
            return (answer.object["locations"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        }
        let ids = fixes.compactMap { $0["id"] as? String }
        #expect(await listed("limit=2") == Array(ids.prefix(2)))
        let from = Self.time(12_000)
        let to = Self.time(14_000)
        let inRange = zip(ids, instants).filter {
            $0.1 >= AdminHarness.start + 12_000 && $0.1 <= AdminHarness.start + 14_000
        }.map(\.0)
        #expect(inRange.count == 3)
        #expect(await listed("from=\(from)&to=\(to)") == inRange)
        #expect(
            await listed("from=\(AdminHarness.start + 12_000)&to=\(AdminHarness.start + 14_000)") == inRange, "Unix ms")
        #expect(await listed("from=\(from)&to=\(to)&limit=1") == Array(inRange.prefix(1)))
        #expect(await listed("from=\(to)&to=\(from)").isEmpty)
        // Any RFC 3339 date-time is a bound, before 1970 and with an offset too.
        let upTo = zip(ids, instants).filter { $0.1 <= AdminHarness.start + 14_000 }.map(\.0)
        #expect(await listed("from=0001-01-01T00:00:00%2B23:59&to=\(to)") == upTo)
        #expect(await listed("to=1969-12-31T23:59:59.999Z").isEmpty)
    }

    @Test(
        "GET /api/v1/devices/{id}/locations refuses a bad range or limit by field, and an unknown id with 404",
        arguments: [
            ("walkers-0001", "from=yesterday", 400, "from"), ("walkers-0001", "to=2099-13-01T00:00:00Z", 400, "to"),
            ("walkers-0001", "limit=9999", 400, "limit"), ("nobody", "", 404, "id"),
        ])
    func locationsRefuse(device: String, query: String, status: Int, field: String) async throws {
        let harness = try AdminHarness()
        let answer = await harness.call("GET", "/api/v1/devices/\(device)/locations?\(query)")
        #expect(answer.status == status && answer.errorField == field, "\(answer.text)")
    }

    @Test(
        """
        POST /api/v1/devices lists the copies at once; they set off at the spawn \
        instant, paced at the rate on the fleet's warp, and upload 3 s later
        """
    )
    func spawn() async throws {
        let harness = try AdminHarness()
        harness.simulated.advance(byMillis: 10_000)
        let spec = """
            {"spec": {"name": "runners", "count": 1, "platform": "android", "route": "walk.csv", "pace": "run",
                      "config": {"preset": "precision", "whenStationary": "keepTracking"}}}
            """
        let added = await harness.call("POST", "/api/v1/devices", body: spec)
        #expect(added.status == 202)
        #expect(added.object["ids"] as? [String] == ["runners-0001"])
        // 20 a second at warp 120: one every 50 real ms, 6 virtual s.
        let copies = await harness.call(
            "POST", "/api/v1/devices", body: #"{"group": "walkers", "count": 2, "ratePerSecond": 20}"#)
        #expect(copies.status == 202)
        #expect(copies.object["ids"] as? [String] == ["walkers-0005", "walkers-0006"])
        let fleet = await harness.call("GET", "/api/v1/fleet").object
        #expect(fleet["devices"] as? Int == 7)
        #expect(fleet["groups"] as? [String] == ["walkers", "runners"])
        #expect(
            Set(await harness.states().keys) == [
                "walkers-0001", "walkers-0002", "walkers-0003", "walkers-0004", "walkers-0005", "walkers-0006",
                "runners-0001",
            ])
        let devicesFile = try String(contentsOfFile: harness.folder + "/data/devices.json", encoding: .utf8)
        #expect(devicesFile.contains("runners-0001"), "a spawned device's install id is not remembered")

        harness.simulated.advance(byMillis: 20_000)
        for (id, setOff) in [("walkers-0005", Int64(10_000)), ("walkers-0006", 16_000)] {
            let history = await harness.history(id)
            #expect(
                history == [
                    Change(at: Self.time(setOff), state: "starting"), Change(at: Self.time(setOff), state: "tracking"),
                ], "\(id)")
        }
        let runner = await harness.history("runners-0001")
        #expect(runner.first == Change(at: Self.time(10_000), state: "starting"))
        // Three fixes a second apart make a batch: the first upload leaves 3 s after setting off.
        for (id, setOff) in [("walkers-0005", Int64(10_000)), ("walkers-0006", 16_000)] {
            let first = try #require(harness.uploadsSent.first { $0.device == id })
            #expect(first.sentAt == AdminHarness.start + setOff + 3_000, "\(id)")
            let listed =
                await harness.call("GET", "/api/v1/devices/\(id)/uploads").object["uploads"] as? [[String: Any]]
            #expect(listed?.last?["at"] as? String == Self.time(setOff + 3_000 + AdminHarness.latencyMillis), "\(id)")
        }
        #expect(await harness.device("runners-0001")["platform"] as? String == "android")
    }

    @Test("spawns are paced on the warp in force: at warp 30, 20 a second arrive 1.5 virtual s apart")
    func spawnAfterWarpChange() async throws {
        let harness = try AdminHarness()
        harness.simulated.advance(byMillis: 10_000)
        #expect(await harness.call("PATCH", "/api/v1/fleet", body: #"{"warp": 30}"#).status == 200)
        let copies = await harness.call(
            "POST", "/api/v1/devices", body: #"{"group": "walkers", "count": 3, "ratePerSecond": 20}"#)
        #expect(copies.object["ids"] as? [String] == ["walkers-0005", "walkers-0006", "walkers-0007"])
        harness.simulated.advance(byMillis: 10_000)
        for (id, setOff) in [("walkers-0005", Int64(10_000)), ("walkers-0006", 11_500), ("walkers-0007", 13_000)] {
            let history = await harness.history(id)
            #expect(history.first == Change(at: Self.time(setOff), state: "starting"), "\(id)")
        }
    }

    @Test("a spawn without a rate sets off at once, even while an earlier paced spawn is still arriving")
    func unpacedSpawnBehindPaced() async throws {
        let harness = try AdminHarness()
        harness.simulated.advance(byMillis: 10_000)
        // 1 a second at warp 120: walkers-0005 at once, walkers-0006 two virtual minutes later.
        let paced = await harness.call(
            "POST", "/api/v1/devices", body: #"{"group": "walkers", "count": 2, "ratePerSecond": 1}"#)
        #expect(paced.object["ids"] as? [String] == ["walkers-0005", "walkers-0006"])
        let unpaced = await harness.call("POST", "/api/v1/devices", body: #"{"group": "walkers", "count": 1}"#)
        #expect(unpaced.object["ids"] as? [String] == ["walkers-0007"])
        harness.simulated.advance(byMillis: 10_000)
        #expect(await harness.history("walkers-0005").first == Change(at: Self.time(10_000), state: "starting"))
        let history = await harness.history("walkers-0007")
        #expect(history.first == Change(at: Self.time(10_000), state: "starting"))
    }

    @Test(
        """
        POST /api/v1/devices refuses an unknown group, a wrong type, an unknown \
        field, a taken or empty name, a missing route, too many and a header name HTTP does not allow, \
        and adds nothing
        """,
        arguments: [
            (#"{"group": "nobody", "count": 1}"#, 404, "not_found", "group"),
            (#"{"group": "walkers", "count": "two"}"#, 400, "bad_type", "count"),
            (#"{"group": "walkers"}"#, 400, "bad_request", "count"),
            (
                #"{"spec": {"name": "x", "count": 1, "route": "walk.csv", "colour": "red"}}"#, 400, "unknown_field",
                "spec.colour"
            ),
            (#"{"spec": {"name": "walkers", "count": 1, "route": "walk.csv"}}"#, 409, "conflict", "spec.name"),
            (#"{"spec": {"name": "lost", "count": 1, "route": "nowhere.gpx"}}"#, 404, "not_found", "spec.route"),
            (#"{"spec": {"name": "lost", "count": 1, "route": "."}}"#, 400, "bad_request", "spec.route"),
            (#"{"spec": {"name": "", "count": 1, "route": "walk.csv"}}"#, 400, "bad_request", "spec.name"),
            (#"{"group": "walkers", "count": 100000}"#, 400, "bad_request", "count"),
            (
                #"{"spec": {"name": "x", "count": 1, "route": "walk.csv", "config": "#
                    + #"{"sync": {"url": "http://127.0.0.1:9/i", "headers": {"Bad Name": "v"}}}}}"#, 400,
                "bad_request", "spec.sync.headers.Bad Name"
            ),
        ])
    func spawnRefuses(body: String, status: Int, code: String, field: String) async throws {
        let harness = try AdminHarness()
        let answer = await harness.call("POST", "/api/v1/devices", body: body)
        #expect(answer.status == status && answer.errorCode == code && answer.errorField == field, "\(answer.text)")
        let fleet = await harness.call("GET", "/api/v1/fleet").object
        #expect(fleet["devices"] as? Int == 4 && fleet["groups"] as? [String] == ["walkers"])
    }

    @Test(
        """
        DELETE /api/v1/devices/{id} stops the device at once: it is \
        no longer listed and sends nothing more; its store stays
        """
    )
    func delete() async throws {
        let harness = try AdminHarness()
        harness.simulated.advance(byMillis: 10_000)
        let installID = await harness.device("walkers-0002")["installId"] as? String ?? "?"
        let deleted = await harness.call("DELETE", "/api/v1/devices/walkers-0002")
        #expect(deleted.status == 204)
        #expect(await harness.call("GET", "/api/v1/devices/walkers-0002").status == 404)
        #expect(await harness.states().keys.sorted() == ["walkers-0001", "walkers-0003", "walkers-0004"])
        #expect(await harness.call("GET", "/api/v1/fleet").object["devices"] as? Int == 3)
        #expect(await harness.call("DELETE", "/api/v1/devices/walkers-0002").status == 404)
        let sent = harness.simulated.sent.count
        harness.simulated.advance(byMillis: 60_000)
        let later = harness.simulated.sent.dropFirst(sent)
        #expect(!later.contains { $0.device == "walkers-0002" }, "a deleted device sent")
        #expect(Set(later.map(\.device)) == ["walkers-0001", "walkers-0003", "walkers-0004"])
        #expect(FileManager.default.fileExists(atPath: harness.folder + "/data/devices/\(installID)/beekon.db"))
    }

    // MARK: Actions

    @Test(
        """
        revokePermission pauses every device at the instant it is asked, listed \
        in the answer's snapshot; grantPermission brings them back the same way
        """
    )
    func permissionRoundTrip() async throws {
        let harness = try AdminHarness()
        harness.simulated.advance(byMillis: 10_000)
        let revoked = await harness.call(
            "POST", "/api/v1/fleet/actions", body: #"{"action": "revokePermission", "selector": {"all": true}}"#)
        #expect(revoked.status == 202)
        #expect(revoked.object["applied"] as? Int == 4)
        #expect(
            (revoked.object["ids"] as? [String])?.sorted() == [
                "walkers-0001", "walkers-0002", "walkers-0003", "walkers-0004",
            ])
        // No time has passed: the answer came after the snapshot that shows it.
        #expect(Set(await harness.states().values) == ["paused(permissionRevoked)"])
        for id in ["walkers-0001", "walkers-0002", "walkers-0003", "walkers-0004"] {
            let history = await harness.history(id)
            #expect(history.last == Change(at: Self.time(10_000), state: "paused(permissionRevoked)"), "\(id)")
        }
        #expect(await harness.device("walkers-0003")["permission"] as? String == "revoked")
        let admitted = {
            (await harness.call("GET", "/api/v1/fleet").object["fixes"] as? [String: Any] ?? [:]).compactMapValues {
                $0 as? Int
            }
        }
        let before = await admitted()["admitted"]
        harness.simulated.advance(byMillis: 60_000)
        #expect(await admitted()["admitted"] == before, "a device without permission took fixes")

        let granted = await harness.call(
            "POST", "/api/v1/fleet/actions",
            body: #"{"action": "grantPermission", "selector": {"state": "paused(permissionRevoked)"}}"#)
        #expect(granted.object["applied"] as? Int == 4)
        #expect(Set(await harness.states().values) == ["tracking"])
        #expect(
            await harness.history("walkers-0001").suffix(2) == [
                Change(at: Self.time(10_000), state: "paused(permissionRevoked)"),
                Change(at: Self.time(70_000), state: "tracking"),
            ])
        harness.simulated.advance(byMillis: 10_000)
        #expect(await admitted()["admitted"] ?? 0 > before ?? 0)
    }

    @Test(
        """
        a device action applies at the instant it is asked: latency delays its answers \
        by exactly that much, kill is dead at once and relaunches when it said
        """
    )
    func deviceActions() async throws {
        let harness = try AdminHarness()
        harness.simulated.advance(byMillis: 10_000)
        let latency = await harness.call(
            "POST", "/api/v1/devices/walkers-0001/actions", body: #"{"action": "latency", "params": {"ms": 50}}"#)
        #expect(
            latency.status == 202 && latency.object["applied"] as? Int == 1
                && latency.object["ids"] as? [String] == ["walkers-0001"])
        let kill = await harness.call(
            "POST", "/api/v1/fleet/actions",
            body: #"{"action": "kill", "selector": {"ids": ["walkers-0002"]}, "params": {"relaunchAfterSeconds": 60}}"#)
        #expect(kill.status == 202 && kill.object["applied"] as? Int == 1)
        #expect(await harness.states()["walkers-0002"] == "dead")
        #expect(await harness.history("walkers-0002").last == Change(at: Self.time(10_000), state: "dead"))
        let sent = harness.simulated.sent.count
        harness.simulated.advance(byMillis: 60_000)
        // walkers-0001's next upload is heard 80 + 50 ms after it left.
        let next = try #require(harness.simulated.sent.dropFirst(sent).first { $0.device == "walkers-0001" })
        let listed =
            await harness.call("GET", "/api/v1/devices/walkers-0001/uploads").object["uploads"] as? [[String: Any]]
            ?? []
        let record = try #require(listed.first { $0["batchId"] as? String == Self.batchID(next) })
        #expect(record["at"] as? String == Timestamp.text(unixMillis: next.sentAt + 130))
        #expect(record["latencyMs"] as? Double == 130)
        // The app came back 60 s after the kill.
        let history = await harness.history("walkers-0002")
        let dead = try #require(history.lastIndex(of: Change(at: Self.time(10_000), state: "dead")))
        #expect(history.dropFirst(dead + 1).first?.at == Self.time(70_000), "\(history)")
        #expect(await harness.states()["walkers-0002"] != "dead")
    }

    @Test("a fraction selector with a seed picks the same devices each time")
    func fractionSelector() async throws {
        let harness = try AdminHarness()
        harness.simulated.advance(byMillis: 1_000)
        let body = #"{"action": "sync", "selector": {"fraction": 0.5, "seed": 7}}"#
        let first = await harness.call("POST", "/api/v1/fleet/actions", body: body)
        let second = await harness.call("POST", "/api/v1/fleet/actions", body: body)
        #expect(first.status == 202 && (first.object["ids"] as? [String])?.isEmpty == false)
        #expect(first.object["ids"] as? [String] == second.object["ids"] as? [String])
        let all = await harness.call(
            "POST", "/api/v1/fleet/actions", body: #"{"action": "sync", "selector": {"fraction": 1, "seed": 7}}"#)
        #expect(all.object["applied"] as? Int == 4)
    }

    @Test(
        "actions refuse unknown devices, groups, ids, actions, params and malformed selectors by field",
        arguments: [
            ("/api/v1/devices/nobody/actions", #"{"action": "sync"}"#, 404, "not_found", nil),
            (
                "/api/v1/fleet/actions", #"{"action": "sync", "selector": {"group": "nobody"}}"#, 404, "not_found",
                "selector.group"
            ),
            (
                "/api/v1/fleet/actions", #"{"action": "sync", "selector": {"ids": ["nobody"]}}"#, 404, "not_found",
                "selector.ids"
            ),
            (
                "/api/v1/fleet/actions", #"{"action": "sync", "selector": {"ids": ["walkers-0001", ""]}}"#, 400,
                "bad_request", "selector.ids[1]"
            ),
            ("/api/v1/fleet/actions", #"{"action": "sync", "selector": {}}"#, 400, "bad_request", "selector"),
            (
                "/api/v1/fleet/actions", #"{"action": "sync", "selector": {"all": true, "group": "walkers"}}"#, 400,
                "bad_request", "selector"
            ),
            (
                "/api/v1/fleet/actions", #"{"action": "sync", "selector": {"colour": "red"}}"#, 400, "unknown_field",
                "selector.colour"
            ),
            (
                "/api/v1/fleet/actions", #"{"action": "sync", "selector": {"fraction": "half"}}"#, 400, "bad_type",
                "selector.fraction"
            ),
            (
                "/api/v1/fleet/actions", #"{"action": "sync", "selector": {"fraction": 2}}"#, 400, "bad_request",
                "selector.fraction"
            ),
            ("/api/v1/fleet/actions", #"{"action": "sync"}"#, 400, "bad_request", "selector"),
            (
                "/api/v1/fleet/actions", #"{"action": "explode", "selector": {"all": true}}"#, 400, "bad_request",
                "action"
            ),
            ("/api/v1/fleet/actions", #"{"action": 3, "selector": {"all": true}}"#, 400, "bad_type", "action"),
            (
                "/api/v1/fleet/actions", #"{"action": "latency", "selector": {"all": true}, "params": {"ms": "slow"}}"#,
                400, "bad_type", "params.ms"
            ),
            (
                "/api/v1/fleet/actions", #"{"action": "latency", "selector": {"all": true}, "params": {"seconds": 1}}"#,
                400, "unknown_field", "params.seconds"
            ),
            (
                "/api/v1/fleet/actions", #"{"action": "sync", "selector": {"all": true}, "params": {"": null}}"#,
                400, "unknown_field", "params."
            ),
            (
                "/api/v1/fleet/actions", #"{"action": "latency", "selector": {"all": true}}"#, 400, "bad_request",
                "params.ms"
            ),
            (
                "/api/v1/fleet/actions", #"{"action": "sync", "selector": {"all": true}, "extra": 1}"#, 400,
                "unknown_field", "extra"
            ),
        ] as [(String, String, Int, String, String?)])
    func actionRefuses(path: String, body: String, status: Int, code: String, field: String?) async throws {
        let harness = try AdminHarness()
        let answer = await harness.call("POST", path, body: body)
        #expect(answer.status == status && answer.errorCode == code, "\(answer.text)")
        if let field { #expect(answer.errorField == field, "\(answer.text)") }
        #expect(harness.simulated.snapshot.actions.isEmpty, "a refused action ran")
    }

    // MARK: Stats

    /// Each walker's uploads answered its own way: (outcome heard, virtual latency, network failure).
    static let answers: [String: (answer: SimulatedAnswer, outcome: String, latency: Int64, network: Bool)] = [
        "walkers-0001": (.respond(status: 200, afterMillis: 80), "200", 80, false),
        "walkers-0002": (.respond(status: 503, afterMillis: 250), "503", 250, false),
        "walkers-0003": (.fail(.refused, afterMillis: 5), "refused", 5, true),
        "walkers-0004": (.hang, "warp-timeout", 30_000, true),
    ]

    @Test("GET /api/v1/stats and /metrics count each outcome exactly as the network answered it, with its latency")
    func statsAndMetrics() async throws {
        let harness = try AdminHarness(fleet: .simulated { Self.answers[$0.device]!.answer })
        // 4 virtual minutes at warp 120: 2 s of the driver's real time, all inside the 10 s window.
        harness.simulated.advance(byMillis: 4 * 60_000)
        let now = AdminHarness.start + 4 * 60_000
        var expected: [String: Int] = [:]
        for request in harness.uploadsSent {
            let planned = Self.answers[request.device]!
            if request.sentAt + planned.latency <= now { expected[planned.outcome, default: 0] += 1 }
        }
        #expect(expected.count == 4, "every outcome is heard: \(expected)")
        let stats = await harness.call("GET", "/api/v1/stats").object
        let outcomes = stats["outcomes"] as? [[String: Any]] ?? []
        #expect(outcomes.map { $0["outcome"] as? String ?? "" } == expected.keys.sorted())
        for outcome in outcomes {
            let label = outcome["outcome"] as? String ?? ""
            let planned = try #require(Self.answers.values.first { $0.outcome == label })
            let count = try #require(expected[label])
            #expect(outcome["count"] as? Int == count, "\(label)")
            #expect(outcome["kind"] as? String == (planned.network ? "network" : "status"), "\(label)")
            #expect(outcome["ratePerSecond"] as? Double == (Double(count) / 2 * 100).rounded() / 100, "\(label)")
            let latency = outcome["latencyMs"] as? [String: Double] ?? [:]
            #expect(
                latency == [
                    "p50": Double(planned.latency), "p90": Double(planned.latency), "p95": Double(planned.latency),
                    "p99": Double(planned.latency), "max": Double(planned.latency),
                ], "\(label)")
            let last10s = outcome["last10s"] as? [String: Any] ?? [:]
            #expect(last10s["count"] as? Int == count, "\(label)")
            #expect(last10s["ratePerSecond"] as? Double == (Double(count) / 2 * 100).rounded() / 100, "\(label)")
            #expect((last10s["latencyMs"] as? [String: Double])?["p99"] == Double(planned.latency), "\(label)")
        }
        let total = expected.values.reduce(0, +)
        #expect(stats["uploadsPerSecond"] as? Double == (Double(total) / 2 * 100).rounded() / 100)
        #expect(stats["devicesByState"] as? [String: Int] == ["tracking": 4])
        #expect(stats["fixes"] is [String: Any])

        let metrics = await harness.call("GET", "/metrics")
        #expect(metrics.status == 200)
        let fixes = (stats["fixes"] as? [String: Any] ?? [:]).compactMapValues { $0 as? Int }
        let latency = "beekon_fleet_upload_latency_seconds"
        var samples = expected.map {
            ("beekon_fleet_uploads_total{group=\"walkers\",outcome=\"\($0.key)\"}", Double($0.value))
        }
        samples += [
            ("beekon_fleet_devices{state=\"tracking\"}", 4), ("beekon_fleet_warp", 120),
            ("beekon_fleet_fixes_admitted_total{group=\"walkers\"}", Double(fixes["admitted"] ?? -1)),
            ("beekon_fleet_fixes_acknowledged_total{group=\"walkers\"}", Double(fixes["acknowledged"] ?? -1)),
            ("beekon_fleet_pending_fixes{group=\"walkers\"}", Double(fixes["pending"] ?? -1)),
            ("\(latency)_count{group=\"walkers\"}", Double(total)),
            ("\(latency)_bucket{group=\"walkers\",le=\"+Inf\"}", Double(total)),
            // The 5 ms and 80 ms answers by 0.1 s, the 250 ms ones by 1 s.
            (
                "\(latency)_bucket{group=\"walkers\",le=\"0.1\"}",
                Double(expected["refused", default: 0] + expected["200", default: 0])
            ),
            ("\(latency)_bucket{group=\"walkers\",le=\"1.0\"}", Double(total - expected["warp-timeout", default: 0])),
        ]
        samples += [
            ("beekon_fleet_answers_after_timeout_total", 0), ("beekon_fleet_answers_after_offline_total", 0),
            ("beekon_fleet_max_warp", 0),
        ]
        for (name, value) in samples {
            #expect(Self.sample(metrics.text, name) == value, "\(name)")
        }
        // Prometheus's `le` is inclusive: a timeout heard at exactly the SDK's 30 s is within le="30".
        let within30s = Self.sample(metrics.text, "\(latency)_bucket{group=\"walkers\",le=\"30.0\"}")
        #expect(within30s == Double(total))
    }

    /// The value of the Prometheus sample `name` (with its labels) in `text`.
    static func sample(_ text: String, _ name: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.dropFirst(name.count + 1)) }
    }

    // MARK: The HTTP layer

    @Test("a body over 64 KiB is 413, an unknown path 404, a wrong method 405")
    func limits() async throws {
        let harness = try AdminHarness()
        let huge = "{\"warp\": 1, \"pad\": \"" + String(repeating: "x", count: 70_000) + "\"}"
        let tooLarge = await harness.call("PATCH", "/api/v1/fleet", body: huge)
        #expect(tooLarge.status == 413 && tooLarge.errorCode == "too_large")
        let missing = await harness.call("GET", "/api/v1/nothing")
        #expect(missing.status == 404 && missing.errorCode == "not_found")
        let wrongMethod = await harness.call("DELETE", "/api/v1/fleet")
        #expect(wrongMethod.status == 405 && wrongMethod.errorCode == "method_not_allowed")
        #expect(wrongMethod.headers.contains { $0.name.lowercased() == "allow" })
    }

    @Test(
        """
        with a token, /api and /metrics need it (401 without or \
        with a wrong one), SSE takes ?token=, the page does not
        """
    )
    func tokenRule() async throws {
        let harness = try AdminHarness(token: "s3cret")
        #expect(await harness.call("GET", "/api/v1/fleet").status == 200)
        let missing = await harness.call("GET", "/api/v1/fleet", token: "")
        #expect(missing.status == 401 && missing.errorCode == "unauthorized")
        #expect(await harness.call("GET", "/api/v1/fleet", token: "wrong").status == 401)
        #expect(await harness.call("GET", "/metrics", token: "").status == 401)
        #expect(await harness.call("PATCH", "/api/v1/fleet", body: #"{"warp": 2}"#, token: "").status == 401)
        #expect(await harness.call("GET", "/api/v1/fleet", token: "").status == 401)
        #expect(
            await harness.call("GET", "/api/v1/fleet?token=s3cret", token: "").status == 401, "?token= is for SSE only")
        #expect(await harness.call("GET", "/", token: "").status == 200)
        #expect(
            await harness.call("GET", "/api/v1/fleet").object["warp"] as? Double == 120,
            "a refused PATCH changed the warp")
        let stream = await harness.readStream("/api/v1/events?token=s3cret") { $0.contains("event: fleet\ndata: {") }
        #expect(stream.hasPrefix("HTTP/1.1 200"))
        #expect(stream.contains("event: fleet"))
        let refused = await harness.readStream("/api/v1/events?token=wrong") { $0.contains("\r\n\r\n") }
        #expect(refused.hasPrefix("HTTP/1.1 401"))
    }

    @Test(
        """
        GET /healthz needs no token and takes any Host: 200 running while \
        the fleet runs, 503 stopping once it ends, when commands are refused
        """
    )
    func health() async throws {
        let harness = try AdminHarness(token: "s3cret")
        let running = await harness.call("GET", "/healthz", token: "")
        #expect(running.status == 200)
        #expect(running.text == #"{"status":"running"}"#)
        #expect(await harness.call("POST", "/healthz", body: "{}", token: "").status == 405)
        #expect(await harness.call("GET", "/healthz", token: "", headers: [("Host", "10.1.2.3:8080")]).status == 200)
        #expect(await harness.call("GET", "/api/v1/fleet", headers: [("Host", "10.1.2.3:8080")]).status == 421)
        harness.simulated.finish()
        let stopping = await harness.call("GET", "/healthz", token: "")
        #expect(stopping.status == 503 && stopping.text == #"{"status":"stopping"}"#)
        let refused = await harness.call("PATCH", "/api/v1/fleet", body: #"{"warp": 2}"#)
        #expect(refused.status == 409 && refused.errorCode == "conflict", "\(refused.text)")
        #expect(await harness.call("GET", "/api/v1/fleet").status == 200, "reads go on from the last snapshot")
    }

    @Test("binding anything but loopback without a token is refused at startup")
    func refusesOpenBind() throws {
        let harness = try AdminHarness()
        #expect(throws: AdminError.self) {
            _ = try AdminServer(runtime: harness.control, configuration: AdminConfiguration(host: "0.0.0.0", port: 0))
        }
        let withToken = try AdminServer(
            runtime: harness.control, configuration: AdminConfiguration(host: "0.0.0.0", port: 0, token: "t"))
        withToken.stop()
    }

    @Test(
        """
        GET /api/v1/events streams the fleet, the action at its virtual \
        instant, the devices it changed and the uploads answered
        """
    )
    func events() async throws {
        let harness = try AdminHarness()
        harness.simulated.advance(byMillis: 10_000)
        let runtime = harness.simulated
        let answered = harness.uploadsSent.count + 4
        let action = #"event: action"# + "\n" + #"data: {"action":"sync","applied":4,"at":"2026-06-15T08:00:10.000Z"}"#
        let uploads = "event: uploads\ndata: {\"byOutcome\":{\"200\":\(answered)},"
        let ids = ["walkers-0001", "walkers-0002", "walkers-0003", "walkers-0004"]
        // Each device's sync at +10 s takes its one pending fix, answered by +10.08 s.
        let settled = ids.map { #"{"id":"\#($0)","state":"tracking","pending":0,"lastOutcome":"200"}"# }
        let opened = Mutex(false)
        let stream = await harness.readStream("/api/v1/events") { raw in
            // Once the stream is open, a sync for all at +10 s, and half a second of virtual time.
            if !opened.withLock({ opened in
                defer { opened = true }
                return opened
            }) {
                runtime.apply(.sync, to: .all) { _ in }
                runtime.advance(byMillis: 500)
            }
            let body = Self.dechunked(raw)
            return body.contains(action) && body.contains(uploads) && settled.allSatisfy(body.contains)
        }
        #expect(stream.contains("text/event-stream"))
        let body = Self.dechunked(stream)
        #expect(body.hasPrefix("retry: 2000\n\nevent: fleet\ndata: {"), "\(body.prefix(120))")
        #expect(body.contains(action), "\(body)")
        #expect(body.contains(uploads), "\(body)")
        #expect(body.contains("event: devices\ndata: {\"changes\":["))
        for change in settled { #expect(body.contains(change), "no devices change \(change)") }
        #expect(
            body.components(separatedBy: "event: fleet\ndata: {").count >= 3,
            "a fleet event on opening and one a second")
        // Every event is one `event:` line and one `data:` line of JSON, as EventSource reads them.
        for block in body.components(separatedBy: "\n\n") where block.contains("event: ") {
            let lines = block.split(separator: "\n").filter { $0.hasPrefix("event: ") || $0.hasPrefix("data: ") }
            #expect(lines.count == 2, "a malformed event: \(block.prefix(120))")
            guard let data = lines.last(where: { $0.hasPrefix("data: ") }) else { continue }
            let json = try? JSONSerialization.jsonObject(with: Data(data.dropFirst(6).utf8))
            #expect(json is [String: Any], "an event's data is not a JSON object: \(data.prefix(120))")
        }
    }

    @Test("the OpenAPI file and the page are served; a missing file or a path with .. is 404")
    func files() async throws {
        let harness = try AdminHarness()
        let openAPI = await harness.call("GET", "/api/v1/openapi.yaml")
        #expect(openAPI.status == 200)
        #expect(openAPI.text.hasPrefix("openapi: 3.0"))
        let page = await harness.call("GET", "/")
        #expect(page.status == 200)
        #expect(page.headers.contains { $0.name.lowercased() == "content-type" && $0.value.hasPrefix("text/html") })
        #expect(await harness.call("GET", "/no-such-file.js").status == 404)
        #expect(await harness.call("GET", "/../Package.swift").status == 404)
        #expect(await harness.call("GET", "/.git/config").status == 404)
        // Leaflet for the map: Debian's libjs-leaflet where it is installed (CI and the image install
        // it), else an empty script, so the page falls back to its grid with no error.
        let leaflet = await harness.call("GET", "/vendor/leaflet/leaflet.js")
        #expect(leaflet.status == 200)
        #expect(
            leaflet.headers.contains { $0.name.lowercased() == "content-type" && $0.value.hasPrefix("text/javascript") }
        )
        if FileManager.default.fileExists(atPath: "/usr/share/javascript/leaflet/leaflet.js") {
            #expect(leaflet.text.contains("Leaflet"), "not Debian's Leaflet")
            #expect(await harness.call("GET", "/vendor/leaflet/images/layers.png").status == 200)
        }
        #expect(await harness.call("GET", "/vendor/leaflet/../../etc/passwd").status == 404)
    }

    /// The body of a chunked HTTP/1.1 response (after its headers), up to its last whole chunk.
    static func dechunked(_ raw: String) -> String {
        guard let headersEnd = raw.range(of: "\r\n\r\n") else { return "" }
        var bytes = Array(raw[headersEnd.upperBound...].utf8)[...]
        var body: [UInt8] = []
        while let lineEnd = bytes.firstIndex(of: UInt8(ascii: "\r")),
            let size = Int(String(decoding: bytes[bytes.startIndex..<lineEnd], as: UTF8.self), radix: 16), size > 0
        {
            let start = lineEnd + 2
            guard start + size <= bytes.endIndex else { break }
            body += bytes[start..<start + size]
            bytes = bytes[min(start + size + 2, bytes.endIndex)...]
        }
        return String(decoding: body, as: UTF8.self)
    }
}
