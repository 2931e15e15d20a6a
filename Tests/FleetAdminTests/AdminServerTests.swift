import FleetAdmin
import FleetKit
import Foundation
import Testing

/// The admin REST API against the real server on port 0, a real small fleet and a real ingest
/// receiver: every endpoint, its bad input, and the token rule.
@Suite("Admin server", .serialized)
struct AdminServerTests {
    @Test("GET /api/v1/fleet describes the running fleet")
    func fleetSummary() async throws {
        let harness = try AdminHarness()
        let answer = await harness.call("GET", "/api/v1/fleet")
        #expect(answer.status == 200)
        let fleet = answer.object
        #expect(fleet["name"] as? String == "admin-test")
        #expect(fleet["devices"] as? Int == 4)
        #expect(fleet["groups"] as? [String] == ["walkers"])
        #expect((fleet["byPlatform"] as? [String: Int])?["ios"] == 4)
        #expect((fleet["byGroup"] as? [String: Int])?["walkers"] == 4)
        #expect(fleet["warp"] as? Double == 120)
        #expect(fleet["paused"] as? Bool == false)
        #expect((fleet["virtualTime"] as? String)?.hasSuffix("Z") == true)
        #expect(fleet["virtualTimeMillis"] is Int)
        #expect(fleet["endsAt"] is NSNull && fleet["endsAtMillis"] is NSNull, "no virtual-time limit: \(answer.text)")
        #expect(fleet["fixes"] is [String: Any] && fleet["batches"] is [String: Any] && fleet["byState"] is [String: Any])
    }

    @Test("GET /api/v1/fleet says when a run with a virtual duration ends on the virtual clock")
    func fleetSummaryEndsAt() async throws {
        let harness = try AdminHarness(duration: "8h")
        let fleet = await harness.call("GET", "/api/v1/fleet").object
        #expect(fleet["endsAt"] as? String == "2026-06-15T16:00:00.000Z")
        #expect(fleet["endsAtMillis"] as? Int == 1_781_510_400_000 + 8 * 3_600_000)
    }

    @Test("PATCH /api/v1/fleet sets the warp and pauses virtual time, and refuses bad bodies by field")
    func patchFleet() async throws {
        let harness = try AdminHarness()
        let patched = await harness.call("PATCH", "/api/v1/fleet", body: #"{"warp": 30, "paused": true}"#)
        #expect(patched.status == 200)
        #expect(patched.object["warp"] as? Double == 30)
        #expect(patched.object["paused"] as? Bool == true)
        let first = await harness.call("GET", "/api/v1/fleet").object["virtualTimeMillis"] as? Int
        try await Task.sleep(nanoseconds: 400_000_000)
        let second = await harness.call("GET", "/api/v1/fleet").object["virtualTimeMillis"] as? Int
        #expect(first != nil && first == second, "virtual time moved while paused")
        let resumed = await harness.call("PATCH", "/api/v1/fleet", body: #"{"paused": false}"#)
        #expect(resumed.object["paused"] as? Bool == false)

        let negative = await harness.call("PATCH", "/api/v1/fleet", body: #"{"warp": -1}"#)
        #expect(negative.status == 400 && negative.errorCode == "bad_request" && negative.errorField == "warp")
        let wrongType = await harness.call("PATCH", "/api/v1/fleet", body: #"{"warp": "fast"}"#)
        #expect(wrongType.status == 400 && wrongType.errorCode == "bad_type" && wrongType.errorField == "warp")
        let unknown = await harness.call("PATCH", "/api/v1/fleet", body: #"{"speed": 2}"#)
        #expect(unknown.status == 400 && unknown.errorCode == "unknown_field" && unknown.errorField == "speed")
        let badJSON = await harness.call("PATCH", "/api/v1/fleet", body: #"{"warp": 2"#)
        #expect(badJSON.status == 400 && badJSON.errorCode == "bad_request")
        let notObject = await harness.call("PATCH", "/api/v1/fleet", body: "[1]")
        #expect(notObject.status == 400)
    }

    @Test("GET /api/v1/devices filters, sorts and pages, and refuses a bad sort, limit or cursor")
    func deviceList() async throws {
        let harness = try AdminHarness()
        #expect(await harness.eventually { await harness.states().values.filter { $0 == "tracking" }.count == 4 })
        let first = await harness.call("GET", "/api/v1/devices?limit=3")
        #expect(first.status == 200)
        #expect(first.object["total"] as? Int == 4)
        let page = first.object["devices"] as? [[String: Any]] ?? []
        #expect(page.map { $0["id"] as? String } == ["walkers-0001", "walkers-0002", "walkers-0003"])
        let summary = page.first ?? [:]
        for key in ["group", "platform", "model", "installId", "state", "alive", "permission", "locationServices", "network", "pending"] {
            #expect(summary[key] != nil, "DeviceSummary lacks \(key)")
        }
        #expect(summary["permission"] as? String == "granted" && summary["network"] as? String == "online")
        let cursor = try #require(first.object["next"] as? String)
        let second = await harness.call("GET", "/api/v1/devices?limit=3&cursor=\(cursor)")
        #expect((second.object["devices"] as? [[String: Any]])?.map { $0["id"] as? String } == ["walkers-0004"])
        #expect(second.object["next"] is NSNull)
        let descending = await harness.call("GET", "/api/v1/devices?sort=-id&limit=1")
        #expect((descending.object["devices"] as? [[String: Any]])?.first?["id"] as? String == "walkers-0004")
        let byText = await harness.call("GET", "/api/v1/devices?q=0002")
        #expect(byText.object["total"] as? Int == 1)
        let byState = await harness.call("GET", "/api/v1/devices?state=track*&group=walkers")
        #expect(byState.object["total"] as? Int == 4)
        let none = await harness.call("GET", "/api/v1/devices?state=paused*")
        #expect(none.object["total"] as? Int == 0)
        let badSort = await harness.call("GET", "/api/v1/devices?sort=colour")
        #expect(badSort.status == 400 && badSort.errorField == "sort")
        let badLimit = await harness.call("GET", "/api/v1/devices?limit=0")
        #expect(badLimit.status == 400 && badLimit.errorField == "limit")
        let badCursor = await harness.call("GET", "/api/v1/devices?cursor=zzz")
        #expect(badCursor.status == 400 && badCursor.errorField == "cursor")
    }

    @Test("GET /api/v1/devices/{id} shows sync, auth and history without any secret; an unknown id is 404")
    func deviceDetail() async throws {
        let harness = try AdminHarness()
        #expect(await harness.eventually { await harness.states()["walkers-0001"] == "tracking" })
        let answer = await harness.call("GET", "/api/v1/devices/walkers-0001")
        #expect(answer.status == 200)
        let device = answer.object
        #expect(device["id"] as? String == "walkers-0001")
        #expect((device["sync"] as? [String: Any])?["status"] is String)
        #expect((device["auth"] as? [String: Any])?["state"] as? String == "none")
        let history = device["stateHistory"] as? [[String: Any]] ?? []
        #expect(history.contains { $0["state"] as? String == "tracking" })
        let headers = ((device["config"] as? [String: Any])?["sync"] as? [String: Any])?["headers"] as? [String: String]
        #expect(headers == ["X-Api-Key": "[redacted]"])
        #expect(!answer.text.contains("secret-header-value"), "a secret header value leaked")
        let unknown = await harness.call("GET", "/api/v1/devices/nobody-0001")
        #expect(unknown.status == 404 && unknown.errorCode == "not_found")
    }

    @Test("a device's uploads and stored locations are listed; bad ranges and unknown ids are refused")
    func uploadsAndLocations() async throws {
        let harness = try AdminHarness()
        #expect(
            await harness.eventually {
                ((await harness.call("GET", "/api/v1/devices/walkers-0001/uploads")).object["uploads"] as? [Any])?.isEmpty == false
            })
        let uploads = await harness.call("GET", "/api/v1/devices/walkers-0001/uploads")
        let record = (uploads.object["uploads"] as? [[String: Any]])?.first ?? [:]
        #expect(record["outcome"] as? String == "200")
        #expect((record["fixes"] as? Int ?? 0) > 0)
        #expect(record["batchId"] is String && record["at"] is String && record["latencyMs"] is Double)
        // Stop uploads, so fixes stay in the store to be read.
        _ = await harness.call(
            "POST", "/api/v1/devices/walkers-0001/actions", body: #"{"action": "networkOffline"}"#)
        #expect(
            await harness.eventually {
                ((await harness.call("GET", "/api/v1/devices/walkers-0001/locations?limit=2")).object["locations"] as? [Any])?.count == 2
            })
        let locations = await harness.call("GET", "/api/v1/devices/walkers-0001/locations?from=0&to=2099-01-01T00:00:00.000Z&limit=2")
        #expect(locations.status == 200)
        let fix = (locations.object["locations"] as? [[String: Any]])?.first ?? [:]
        for key in ["id", "timestamp", "latitude", "longitude", "accuracy", "speed", "trigger", "uploaded"] {
            #expect(fix[key] != nil, "a location lacks \(key)")
        }
        let badFrom = await harness.call("GET", "/api/v1/devices/walkers-0001/locations?from=yesterday")
        #expect(badFrom.status == 400 && badFrom.errorField == "from")
        let badLimit = await harness.call("GET", "/api/v1/devices/walkers-0001/locations?limit=9999")
        #expect(badLimit.status == 400 && badLimit.errorField == "limit")
        let unknown = await harness.call("GET", "/api/v1/devices/nobody/locations")
        #expect(unknown.status == 404)
        let unknownUploads = await harness.call("GET", "/api/v1/devices/nobody/uploads")
        #expect(unknownUploads.status == 404)
    }

    @Test("POST /api/v1/devices spawns copies of a group and an inline spec, and they show up in GET /devices")
    func spawn() async throws {
        let harness = try AdminHarness()
        let copies = await harness.call("POST", "/api/v1/devices", body: #"{"group": "walkers", "count": 2, "ratePerSecond": 20}"#)
        #expect(copies.status == 202)
        #expect(copies.object["ids"] as? [String] == ["walkers-0005", "walkers-0006"])
        let spec = """
            {"spec": {"name": "runners", "count": 1, "platform": "android", "route": "walk.csv", "pace": "run",
                      "config": {"preset": "precision", "whenStationary": "keepTracking"}}}
            """
        let added = await harness.call("POST", "/api/v1/devices", body: spec)
        #expect(added.status == 202)
        #expect(added.object["ids"] as? [String] == ["runners-0001"])
        #expect(
            await harness.eventually {
                let states = await harness.states()
                return states["walkers-0006"] != nil && states["runners-0001"] != nil
            })
        #expect(await harness.eventually { await harness.states()["walkers-0006"] == "tracking" })
        let fleet = await harness.call("GET", "/api/v1/fleet").object
        #expect(fleet["devices"] as? Int == 7)
        #expect(fleet["groups"] as? [String] == ["walkers", "runners"])
        let devicesFile = try String(contentsOfFile: harness.folder + "/data/devices.json", encoding: .utf8)
        #expect(devicesFile.contains("runners-0001"), "a spawned device's install id is not remembered")

        let unknownGroup = await harness.call("POST", "/api/v1/devices", body: #"{"group": "nobody", "count": 1}"#)
        #expect(unknownGroup.status == 400 && unknownGroup.errorField == "group")
        let wrongType = await harness.call("POST", "/api/v1/devices", body: #"{"group": "walkers", "count": "two"}"#)
        #expect(wrongType.status == 400 && wrongType.errorCode == "bad_type" && wrongType.errorField == "count")
        let unknownField = await harness.call(
            "POST", "/api/v1/devices", body: #"{"spec": {"name": "x", "count": 1, "route": "walk.csv", "colour": "red"}}"#)
        #expect(unknownField.status == 400 && unknownField.errorCode == "unknown_field" && unknownField.errorField == "spec.colour")
        let taken = await harness.call("POST", "/api/v1/devices", body: #"{"spec": {"name": "walkers", "count": 1, "route": "walk.csv"}}"#)
        #expect(taken.status == 409 && taken.errorCode == "conflict")
        let badRoute = await harness.call("POST", "/api/v1/devices", body: #"{"spec": {"name": "lost", "count": 1, "route": "nowhere.gpx"}}"#)
        #expect(badRoute.status == 400 && badRoute.errorField == "spec.route")
        let tooMany = await harness.call("POST", "/api/v1/devices", body: #"{"group": "walkers", "count": 100000}"#)
        #expect(tooMany.status == 400 && tooMany.errorField == "count")
    }

    @Test("DELETE /api/v1/devices/{id} stops the device and drops it from the list; its store stays")
    func delete() async throws {
        let harness = try AdminHarness()
        #expect(await harness.eventually { await harness.states().count == 4 })
        let installID = await harness.call("GET", "/api/v1/devices/walkers-0002").object["installId"] as? String ?? "?"
        let deleted = await harness.call("DELETE", "/api/v1/devices/walkers-0002")
        #expect(deleted.status == 204)
        #expect(await harness.call("GET", "/api/v1/devices/walkers-0002").status == 404)
        #expect(await harness.states().keys.sorted() == ["walkers-0001", "walkers-0003", "walkers-0004"])
        #expect(await harness.call("DELETE", "/api/v1/devices/walkers-0002").status == 404)
        #expect(FileManager.default.fileExists(atPath: harness.folder + "/data/devices/\(installID)/beekon.db"))
    }

    @Test("revokePermission through /fleet/actions pauses devices (paused(permissionRevoked)) and grantPermission brings them back to tracking")
    func permissionRoundTrip() async throws {
        let harness = try AdminHarness()
        #expect(await harness.eventually { await harness.states().values.filter { $0 == "tracking" }.count == 4 })
        let revoked = await harness.call(
            "POST", "/api/v1/fleet/actions", body: #"{"action": "revokePermission", "selector": {"all": true}}"#)
        #expect(revoked.status == 202)
        #expect(revoked.object["applied"] as? Int == 4)
        #expect((revoked.object["ids"] as? [String])?.count == 4)
        #expect(await harness.eventually { Set(await harness.states().values) == ["paused(permissionRevoked)"] })
        let device = await harness.call("GET", "/api/v1/devices/walkers-0003").object
        #expect(device["permission"] as? String == "revoked")
        let granted = await harness.call(
            "POST", "/api/v1/fleet/actions",
            body: #"{"action": "grantPermission", "selector": {"state": "paused(permissionRevoked)"}}"#)
        #expect(granted.object["applied"] as? Int == 4)
        #expect(await harness.eventually { Set(await harness.states().values) == ["tracking"] })
    }

    @Test("actions refuse unknown devices, groups, ids, actions, params and malformed selectors by field")
    func actionErrors() async throws {
        let harness = try AdminHarness()
        let one = await harness.call("POST", "/api/v1/devices/walkers-0001/actions", body: #"{"action": "latency", "params": {"ms": 50}}"#)
        #expect(one.status == 202 && one.object["applied"] as? Int == 1 && one.object["ids"] as? [String] == ["walkers-0001"])
        let fraction = await harness.call(
            "POST", "/api/v1/fleet/actions", body: #"{"action": "sync", "selector": {"fraction": 1, "seed": 7}}"#)
        #expect(fraction.status == 202 && fraction.object["applied"] as? Int == 4)
        let kill = await harness.call(
            "POST", "/api/v1/fleet/actions", body: #"{"action": "kill", "selector": {"ids": ["walkers-0002"]}, "params": {"relaunchAfterSeconds": 3600}}"#)
        #expect(kill.status == 202)
        #expect(await harness.eventually { await harness.states()["walkers-0002"] == "dead" })

        let cases: [(String, String, Int, String?, String?)] = [
            ("/api/v1/devices/nobody/actions", #"{"action": "sync"}"#, 404, "not_found", nil),
            ("/api/v1/fleet/actions", #"{"action": "sync", "selector": {"group": "nobody"}}"#, 400, "bad_request", "selector.group"),
            ("/api/v1/fleet/actions", #"{"action": "sync", "selector": {"ids": ["nobody"]}}"#, 400, "bad_request", "selector.ids"),
            ("/api/v1/fleet/actions", #"{"action": "sync", "selector": {}}"#, 400, "bad_request", "selector"),
            ("/api/v1/fleet/actions", #"{"action": "sync", "selector": {"all": true, "group": "walkers"}}"#, 400, "bad_request", "selector"),
            ("/api/v1/fleet/actions", #"{"action": "sync", "selector": {"colour": "red"}}"#, 400, "unknown_field", "selector.colour"),
            ("/api/v1/fleet/actions", #"{"action": "sync", "selector": {"fraction": "half"}}"#, 400, "bad_type", "selector.fraction"),
            ("/api/v1/fleet/actions", #"{"action": "sync", "selector": {"fraction": 2}}"#, 400, "bad_request", "selector.fraction"),
            ("/api/v1/fleet/actions", #"{"action": "sync"}"#, 400, "bad_request", "selector"),
            ("/api/v1/fleet/actions", #"{"action": "explode", "selector": {"all": true}}"#, 400, "bad_request", "action"),
            ("/api/v1/fleet/actions", #"{"action": 3, "selector": {"all": true}}"#, 400, "bad_type", "action"),
            ("/api/v1/fleet/actions", #"{"action": "latency", "selector": {"all": true}, "params": {"ms": "slow"}}"#, 400, "bad_type", "params.ms"),
            ("/api/v1/fleet/actions", #"{"action": "latency", "selector": {"all": true}, "params": {"seconds": 1}}"#, 400, "unknown_field", "params.seconds"),
            ("/api/v1/fleet/actions", #"{"action": "latency", "selector": {"all": true}}"#, 400, "bad_request", "params.ms"),
            ("/api/v1/fleet/actions", #"{"action": "sync", "selector": {"all": true}, "extra": 1}"#, 400, "unknown_field", "extra"),
        ]
        for (path, body, status, code, field) in cases {
            let answer = await harness.call("POST", path, body: body)
            #expect(answer.status == status, "\(body): \(answer.text)")
            #expect(answer.errorCode == code, "\(body): \(answer.text)")
            if let field { #expect(answer.errorField == field, "\(body): \(answer.text)") }
        }
    }

    @Test("GET /api/v1/stats gives per-outcome counts and latency over the run and the last 10 s; /metrics speaks Prometheus")
    func statsAndMetrics() async throws {
        let harness = try AdminHarness()
        #expect(await harness.eventually { ((await harness.call("GET", "/api/v1/stats")).object["outcomes"] as? [Any])?.isEmpty == false })
        let stats = await harness.call("GET", "/api/v1/stats").object
        let outcome = (stats["outcomes"] as? [[String: Any]])?.first { $0["outcome"] as? String == "200" } ?? [:]
        #expect(outcome["kind"] as? String == "status")
        #expect((outcome["count"] as? Int ?? 0) > 0)
        #expect(outcome["ratePerSecond"] is Double)
        let latency = outcome["latencyMs"] as? [String: Any] ?? [:]
        for key in ["p50", "p90", "p95", "p99", "max"] { #expect(latency[key] is Double, "latencyMs lacks \(key)") }
        #expect(((outcome["last10s"] as? [String: Any])?["latencyMs"] as? [String: Any])?["p99"] is Double)
        #expect(stats["fixes"] is [String: Any] && stats["uploadsPerSecond"] is Double && stats["devicesByState"] is [String: Any])

        let metrics = await harness.call("GET", "/metrics")
        #expect(metrics.status == 200)
        for name in [
            "beekon_fleet_devices{state=", "beekon_fleet_fixes_admitted_total ", "beekon_fleet_fixes_uploaded_total ",
            "beekon_fleet_pending_fixes ", "beekon_fleet_uploads_total{outcome=\"200\"}",
            "beekon_fleet_upload_latency_seconds_bucket{le=\"+Inf\"}", "beekon_fleet_upload_latency_seconds_count ",
            "beekon_fleet_answers_after_timeout_total ", "beekon_fleet_answers_after_offline_total ", "beekon_fleet_warp 120",
        ] {
            #expect(metrics.text.contains(name), "/metrics lacks \(name)")
        }
    }

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

    @Test("with a token, /api and /metrics need it (401 without or with a wrong one), SSE takes ?token=, the page does not")
    func tokenRule() async throws {
        let harness = try AdminHarness(token: "s3cret")
        #expect(await harness.call("GET", "/api/v1/fleet").status == 200)
        let missing = await harness.call("GET", "/api/v1/fleet", token: "")
        #expect(missing.status == 401 && missing.errorCode == "unauthorized")
        #expect(await harness.call("GET", "/api/v1/fleet", token: "wrong").status == 401)
        #expect(await harness.call("GET", "/metrics", token: "").status == 401)
        #expect(await harness.call("PATCH", "/api/v1/fleet", body: #"{"warp": 2}"#, token: "").status == 401)
        #expect(await harness.call("GET", "/api/v1/fleet?token=s3cret", token: "").status == 401, "?token= is for SSE only")
        #expect(await harness.call("GET", "/", token: "").status == 200)
        let stream = harness.readStream("/api/v1/events?token=s3cret", seconds: 1.5)
        #expect(stream.hasPrefix("HTTP/1.1 200"))
        #expect(stream.contains("event: fleet"))
        let refused = harness.readStream("/api/v1/events?token=wrong", seconds: 0.5)
        #expect(refused.hasPrefix("HTTP/1.1 401"))
    }

    @Test("GET /healthz needs no token and takes any Host: 200 running while the loop runs, 503 stopping once it is asked to stop")
    func health() async throws {
        let harness = try AdminHarness(token: "s3cret")
        let running = await harness.call("GET", "/healthz", token: "")
        #expect(running.status == 200)
        #expect(running.text == #"{"status":"running"}"#)
        #expect(await harness.call("POST", "/healthz", body: "{}", token: "").status == 405)
        #expect(await harness.call("GET", "/healthz", token: "", headers: [("Host", "10.1.2.3:8080")]).status == 200)
        #expect(await harness.call("GET", "/api/v1/fleet", headers: [("Host", "10.1.2.3:8080")]).status == 421)
        harness.runtime.stop()
        #expect(await harness.eventually { await harness.call("GET", "/healthz", token: "").status == 503 })
        #expect(await harness.call("GET", "/healthz", token: "").text == #"{"status":"stopping"}"#)
    }

    @Test("a fleet whose loop has not started is starting, not running")
    func healthBeforeRun() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("beekon-phase-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try "lat,lon\n51.5,-0.12\n51.501,-0.12\n".write(toFile: folder + "/walk.csv", atomically: true, encoding: .utf8)
        let fleet = try FleetFile.parse(
            yaml: AdminHarness.yaml(devices: 1, ingest: "http://127.0.0.1:9/ingest", warp: 1), file: "fleet.yaml", routeFolder: folder)
        let runtime = try FleetRuntime(fleet: fleet, options: RunOptions(dataDirectory: folder + "/data", routeFolder: folder))
        #expect(runtime.phase == .starting)
    }

    @Test("binding anything but loopback without a token is refused at startup")
    func refusesOpenBind() throws {
        let harness = try AdminHarness()
        #expect(throws: AdminError.self) {
            _ = try AdminServer(runtime: harness.runtime, configuration: AdminConfiguration(host: "0.0.0.0", port: 0))
        }
        let withToken = try AdminServer(runtime: harness.runtime, configuration: AdminConfiguration(host: "0.0.0.0", port: 0, token: "t"))
        withToken.stop()
    }

    @Test("GET /api/v1/events streams fleet, devices and action events")
    func events() async throws {
        let harness = try AdminHarness()
        let runtime = harness.runtime
        Task.detached {
            try? await Task.sleep(nanoseconds: 600_000_000)
            runtime.apply(.sync, to: .all) { _ in }
        }
        let stream = harness.readStream("/api/v1/events", seconds: 2.6)
        #expect(stream.contains("text/event-stream"))
        #expect(stream.components(separatedBy: "event: fleet\ndata: {").count >= 3, "expected a fleet event a second")
        #expect(stream.contains("event: devices\ndata: {\"changes\":["))
        #expect(stream.contains("event: action\ndata: {\"action\":\"sync\",\"applied\":4"))
        #expect(stream.contains("event: uploads\ndata: {\"byOutcome\":"))
        // Every event is one `event:` line and one `data:` line of JSON, as EventSource reads them.
        let body = Self.dechunked(stream.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n"))
        #expect(body.contains("event: uploads"))
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
    }

    /// The body of a chunked HTTP/1.1 response, up to its last whole chunk.
    static func dechunked(_ raw: String) -> String {
        var bytes = Array(raw.utf8)[...]
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
