import Foundation
import HTTPMessage
import HTTPTypes
import MicroHTTP
import Testing

@testable import FleetAdmin

/// The checks at the admin's request entry that keep browser pages on other origins, and
/// DNS-rebinding pages, from driving the token-less loopback admin: Host (421), Origin and
/// Sec-Fetch-Site (403), Content-Type (415); and the constant-time token comparison.
@Suite("Admin request checks", .serialized)
struct RequestGuardTests {
    static let spawnBody = #"{"group": "walkers", "count": 1}"#

    @Test(
        "Host must be a loopback literal, localhost, the bind host or an allowed name, with or without a port",
        arguments: [
            ("127.0.0.1:8080", true), ("127.0.0.1", true), ("localhost:8080", true), ("LocalHost", true),
            ("[::1]:8080", true),
            ("[::1]", true), ("127.0.0.5", true), ("127.255.0.1:1", true), ("fleet:8080", true), ("FLEET", true),
            ("evil.example", false), ("evil.example:8080", false), ("127.0.0.1.nip.io", false),
            ("localhost.evil.example", false),
            ("rebind.test:8080", false), ("", false), ("127.0.0.256", false), ("127.0.0", false), ("128.0.0.1", false),
            ("[::1", false), ("[::2]:8080", false), ("127.0.0.1:80x", false), ("127.0.0.1:", false), ("::1", false),
            ("fleet.evil.example", false), ("10.0.0.5", false),
        ])
    func hostRule(host: String, allowed: Bool) {
        let check = RequestGuard(bindHost: "127.0.0.1", allowed: ["fleet"])
        let request = IncomingRequest(
            method: .get, path: "/api/v1/fleet", headerFields: host.isEmpty ? [:] : [.hostField: host])
        do throws(APIError) {
            try check.check(request)
            #expect(allowed, "Host \"\(host)\" was let through")
        } catch {
            #expect(!allowed, "Host \"\(host)\" was refused: \(error.message)")
            #expect(error.status == 421 && error.field == "Host")
        }
    }

    @Test(
        "the bind host is allowed, but a wildcard bind host is not a name",
        arguments: [
            ("10.0.0.5", "10.0.0.5:8080", true), ("fleet.local", "FLEET.local", true), ("::1", "[::1]:8080", true),
            ("0.0.0.0", "0.0.0.0:8080", false), ("::", "[::]:8080", false), ("0.0.0.0", "10.0.0.5", false),
            ("0.0.0.0", "localhost:8080", true),
        ])
    func bindHostRule(bind: String, host: String, allowed: Bool) {
        let request = IncomingRequest(method: .get, path: "/", headerFields: [.hostField: host])
        #expect(
            Result { () throws(APIError) in try RequestGuard(bindHost: bind, allowed: []).check(request) }.isSuccess
                == allowed)
    }

    @Test(
        "an allowed host is a bare name or address, stored as Host carries it; anything else is refused",
        arguments: [
            ("fleet", "fleet"), ("Fleet.Example.org", "fleet.example.org"), ("10.0.0.5", "10.0.0.5"), ("::1", "[::1]"),
            (" fleet ", "fleet"), ("http://fleet", nil), ("fleet:8080", nil), ("fleet/admin", nil), ("", nil),
            ("fl eet", nil),
        ] as [(String, String?)])
    func allowedNames(text: String, name: String?) {
        #expect(RequestGuard.allowedName(text) == name)
    }

    @Test("an allowed host that is not a bare name stops the server from starting, saying what is expected")
    func refusesBadAllowedHost() throws {
        let harness = try AdminHarness()
        do {
            let server = try AdminServer(
                runtime: harness.control,
                configuration: AdminConfiguration(port: 0, allowedHosts: ["fleet", "http://fleet:8080"]))
            server.stop()
            Issue.record("an allowed host with a scheme and a port was taken")
        } catch {
            #expect(!error.cannotListen)
            #expect(
                error.message.contains("\"http://fleet:8080\"") && error.message.contains("no scheme, port or path"))
        }
    }

    @Test(
        "the token comparison accepts the token only",
        arguments: [
            ("s3cret", true), ("s3cre", false), ("s3creT", false), ("s3cretX", false), ("", false), ("t3cret", false),
            ("s3crets3cret", false),
        ])
    func tokenComparison(given: String, same: Bool) {
        #expect(AdminRouter.same(given, "s3cret") == same)
    }

    @Test(
        "over HTTP, a request whose Host is not the admin's is 421 naming the Host and the option, and changes nothing")
    func hostOverHTTP() async throws {
        let harness = try AdminHarness(allowedHosts: ["fleet"])
        let port = harness.admin.port
        let table: [(host: String, allowed: Bool)] = [
            ("127.0.0.1:\(port)", true), ("localhost:\(port)", true), ("[::1]:\(port)", true), ("127.0.0.5", true),
            ("fleet:\(port)", true), ("evil.example", false), ("127.0.0.1.nip.io", false),
            ("rebind.test:\(port)", false),
        ]
        var spawned = 0
        for (host, allowed) in table {
            let read = await harness.call("GET", "/api/v1/fleet", headers: [("Host", host)])
            let spawn = await harness.call("POST", "/api/v1/devices", body: Self.spawnBody, headers: [("Host", host)])
            let warp = await harness.call("PATCH", "/api/v1/fleet", body: #"{"warp": 7}"#, headers: [("Host", host)])
            let page = await harness.call("GET", "/", headers: [("Host", host)])
            if allowed {
                #expect(read.status == 200 && spawn.status == 202 && page.status == 200, "Host \(host)")
                #expect(warp.status == 200, "Host \(host)")
                _ = await harness.call("PATCH", "/api/v1/fleet", body: #"{"warp": 120}"#)
                spawned += 1
            } else {
                for answer in [read, spawn, warp, page] {
                    #expect(
                        answer.status == 421 && answer.errorCode == "misdirected_request"
                            && answer.errorField == "Host", "Host \(host)")
                    let name = host.split(separator: ":").first.map(String.init) ?? host
                    #expect(
                        answer.text.contains(host) && answer.text.contains("--admin-allowed-host \(name)"),
                        "Host \(host): \(answer.text)")
                }
            }
        }
        // No Host at all: only a raw request can leave it out.
        let noHost = harness.exchange(
            "POST /api/v1/devices HTTP/1.1\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(Self.spawnBody.utf8.count)\r\n"
                + "Connection: close\r\n\r\n\(Self.spawnBody)", seconds: 5)
        #expect(noHost.hasPrefix("HTTP/1.1 421"), "\(noHost.prefix(200))")
        #expect(noHost.contains("no Host header"))
        try await Self.expectUnchanged(harness, spawned: spawned)
    }

    @Test(
        """
        a state-changing request from another origin, or marked \
        cross-site, is 403 and changes nothing; reads are not affected
        """
    )
    func originOverHTTP() async throws {
        let harness = try AdminHarness()
        let port = harness.admin.port
        let own = "http://127.0.0.1:\(port)"
        let table: [(headers: [(name: String, value: String)], allowed: Bool)] = [
            ([("Origin", own)], true),
            ([("Origin", "https://127.0.0.1:\(port)")], true),
            ([("Origin", own), ("Sec-Fetch-Site", "same-origin")], true),
            ([("Sec-Fetch-Site", "none")], true),
            ([("Origin", "null")], false),
            ([("Origin", "http://127.0.0.1:\(port == 65535 ? 1 : port + 1)")], false),
            ([("Origin", "http://localhost:\(port)")], false),
            ([("Origin", "http://evil.example")], false),
            ([("Origin", "http://127.0.0.1")], false),
            ([("Origin", own), ("Sec-Fetch-Site", "cross-site")], false),
            ([("Sec-Fetch-Site", "same-site")], false),
        ]
        var spawned = 0
        for (headers, allowed) in table {
            let label = headers.map { "\($0.name): \($0.value)" }.joined(separator: ", ")
            let spawn = await harness.call("POST", "/api/v1/devices", body: Self.spawnBody, headers: headers)
            let warp = await harness.call("PATCH", "/api/v1/fleet", body: #"{"warp": 7}"#, headers: headers)
            let read = await harness.call("GET", "/api/v1/fleet", headers: headers)
            #expect(read.status == 200, "GET with \(label)")
            if allowed {
                #expect(spawn.status == 202 && warp.status == 200, "\(label)")
                _ = await harness.call("PATCH", "/api/v1/fleet", body: #"{"warp": 120}"#)
                spawned += 1
            } else {
                for answer in [spawn, warp] {
                    #expect(answer.status == 403 && answer.errorCode == "forbidden", "\(label): \(answer.text)")
                }
            }
        }
        let delete = await harness.call(
            "DELETE", "/api/v1/devices/walkers-0001", headers: [("Origin", "http://evil.example")])
        #expect(delete.status == 403 && delete.errorField == "Origin")
        #expect(await harness.states()["walkers-0001"] != nil)
        try await Self.expectUnchanged(harness, spawned: spawned)
    }

    @Test("a body that is not application/json is 415 and changes nothing; charset and case are fine")
    func contentTypeOverHTTP() async throws {
        let harness = try AdminHarness()
        let table: [(contentType: String?, allowed: Bool)] = [
            ("application/json", true), ("application/json; charset=utf-8", true),
            ("Application/JSON;charset=UTF-8", true),
            ("text/plain", false), ("text/plain;charset=UTF-8", false), ("application/x-www-form-urlencoded", false),
            ("multipart/form-data; boundary=x", false), ("application/jsonx", false), ("", false), (nil, false),
        ]
        var spawned = 0
        for (contentType, allowed) in table {
            let headers: [(name: String, value: String)] = [("Content-Type", contentType ?? "")]
            let spawn: HarnessAnswer
            let warp: HarnessAnswer
            if contentType != nil {
                spawn = await harness.call("POST", "/api/v1/devices", body: Self.spawnBody, headers: headers)
                warp = await harness.call("PATCH", "/api/v1/fleet", body: #"{"warp": 7}"#, headers: headers)
            } else {
                spawn = Self.rawAnswer(harness, "POST", "/api/v1/devices", body: Self.spawnBody)
                warp = Self.rawAnswer(harness, "PATCH", "/api/v1/fleet", body: #"{"warp": 7}"#)
            }
            if allowed {
                #expect(spawn.status == 202 && warp.status == 200, "Content-Type \(contentType ?? "none")")
                _ = await harness.call("PATCH", "/api/v1/fleet", body: #"{"warp": 120}"#)
                spawned += 1
            } else {
                for answer in [spawn, warp] {
                    #expect(
                        answer.status == 415 && answer.errorField == "Content-Type",
                        "Content-Type \(contentType ?? "none"): \(answer.text)")
                }
            }
        }
        try await Self.expectUnchanged(harness, spawned: spawned)
    }

    typealias HarnessAnswer = AdminHarness.Answer

    /// A request with no Content-Type at all (libcurl adds one to a body), answered as `call` would.
    static func rawAnswer(_ harness: AdminHarness, _ method: String, _ path: String, body: String) -> HarnessAnswer {
        let raw = harness.exchange(
            "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(body.utf8.count)\r\n"
                + "Connection: close\r\n\r\n\(body)",
            seconds: 5)
        let status = raw.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) } ?? 0
        let text = raw.range(of: "\r\n\r\n").map { String(raw[$0.upperBound...]) } ?? ""
        let bytes = Array(text.utf8)
        return HarnessAnswer(
            status: status, headers: [], body: bytes, json: try? JSONSerialization.jsonObject(with: Data(bytes)))
    }

    /// The refused requests changed nothing: the warp is the fleet file's, and the next spawn gets
    /// the id right after the fleet's 4 walkers and the `spawned` accepted ones.
    static func expectUnchanged(_ harness: AdminHarness, spawned: Int) async throws {
        #expect(await harness.call("GET", "/api/v1/fleet").object["warp"] as? Double == 120)
        let next = await harness.call("POST", "/api/v1/devices", body: spawnBody)
        #expect(next.object["ids"] as? [String] == [String(format: "walkers-%04d", 4 + spawned + 1)], "\(next.text)")
    }
}

extension Result {
    fileprivate var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
