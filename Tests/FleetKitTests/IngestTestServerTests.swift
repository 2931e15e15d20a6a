import BeekonDevice
import BeekonNet
import Foundation
import Testing

/// The ingest test server against real HTTP over loopback, sent by BeekonNet's transport.
@Suite("Ingest test server")
struct IngestTestServerTests {
    /// Seed 05's example envelope, as a backend receives it before gunzip.
    static let seedExample = """
        {"schema_version":1,"batch_id":"0190d4e2-7b1a-7c3e-9f10-2a4b6c8d0e1f",
        "session_id":"0190d4e0-1234-7000-8000-aabbccddeeff","sent_at":"2026-06-15T12:34:56.789Z",
        "device":{"install_id":"0190c1a4-aaaa-7bbb-8ccc-ddddeeeeffff","platform":"ios",
        "sdk_version":"0.1.1","model":"iPhone15,3"},
        "extras":{"user_id":"app-user-123","trip":"morning-commute"},
        "locations":[{"id":"0190d4e2-7b1a-7c3e-9f10-2a4b6c8d0e20","timestamp":"2026-06-15T12:34:10.000Z",
        "trigger":"interval","motion":"moving","is_mock":false,"latitude":37.7749,"longitude":-122.4194,
        "accuracy":5.2,"speed":2.5,"bearing":180,"altitude":14.3,"activity":"walking"},
        {"id":"0190d4e2-7b1a-7c3e-9f10-2a4b6c8d0e22","timestamp":"2026-06-15T12:34:40.000Z",
        "trigger":"check_in","motion":"stationary","is_mock":false,"latitude":37.775,"longitude":-122.4193}],
        "geofence_events":[{"id":"0190d4e2-7b1a-7c3e-9f10-2a4b6c8d0e21","geofence_id":"home",
        "type":"exit","timestamp":"2026-06-15T12:34:05.000Z"}]}
        """

    /// Sends `request` and waits for its result without blocking a cooperative thread.
    static func send(_ transport: HTTPTransport, _ request: HTTPRequest) async -> HTTPResult {
        await withCheckedContinuation { continuation in
            transport.submit(request) { continuation.resume(returning: $0) }
        }
    }

    /// A gzipped JSON POST to `url`, as the SDK sends an upload.
    static func upload(_ json: [UInt8], to url: String, device: String) throws -> HTTPRequest {
        HTTPRequest(
            url: url,
            headers: [
                ("Content-Type", "application/json"), ("Content-Encoding", "gzip"),
                ("Authorization", "Bearer tok-1"),
            ],
            body: try GzipCompressor().compress(json), timeoutMillis: 5000, connectionKey: device)
    }

    /// A realistic payload from the SDK's own encoder: `count` fixes from install `installID`.
    static func payload(installID: String, batch: UInt64, count: Int) -> UploadPayload {
        let base: Int64 = 1_781_526_850_000
        let locations = (0..<count).map { index in
            Location(
                id: UUIDv7(high: 0x0190_d4e2_7b1a_7000 | batch, low: 0x8000_0000_0000_0000 | UInt64(index)),
                latitude: 37.7749 + Double(index) * 0.0001, longitude: -122.4194,
                timestamp: base + Int64(index) * 30_000, accuracy: 5, trigger: .interval,
                motion: .moving)!
        }
        return UploadPayload(
            batchID: UUIDv7(high: 0x0190_d4e2_7b1a_7000 | batch, low: 0x9000_0000_0000_0000),
            sessionID: "session-\(installID)", sentAt: base + 600_000,
            device: DeviceIdentity(installID: installID, platform: .android, model: "Pixel 8"),
            extras: ["user_id": "u-\(installID)"], locations: locations)
    }

    @Test("a gzipped seed-05 upload is recorded with its ids and answered 200")
    func gzippedUploadIsRecorded() async throws {
        let server = try IngestTestServer()
        let transport = try HTTPTransport()
        defer { transport.shutdown() }
        let result = await Self.send(
            transport, try Self.upload(Array(Self.seedExample.utf8), to: server.url, device: "d1"))
        #expect(result.status == 200)
        let upload = try #require(server.uploads.first)
        #expect(server.uploads.count == 1)
        #expect(upload.installID == "0190c1a4-aaaa-7bbb-8ccc-ddddeeeeffff")
        #expect(upload.platform == "ios")
        #expect(upload.batchID == "0190d4e2-7b1a-7c3e-9f10-2a4b6c8d0e1f")
        #expect(upload.sessionID == "0190d4e0-1234-7000-8000-aabbccddeeff")
        #expect(upload.sentAt == "2026-06-15T12:34:56.789Z")
        #expect(
            upload.locationIDs == [
                "0190d4e2-7b1a-7c3e-9f10-2a4b6c8d0e20", "0190d4e2-7b1a-7c3e-9f10-2a4b6c8d0e22",
            ])
        #expect(upload.triggers == ["interval", "check_in"])
        #expect(upload.timestamps == ["2026-06-15T12:34:10.000Z", "2026-06-15T12:34:40.000Z"])
        #expect(upload.geofenceEventIDs == ["0190d4e2-7b1a-7c3e-9f10-2a4b6c8d0e21"])
        #expect(upload.extras == ["user_id": "app-user-123", "trip": "morning-commute"])
        #expect(upload.headers["content-encoding"] == "gzip")
        #expect(upload.headers["authorization"] == "Bearer tok-1")
        #expect(upload.status == 200)
        #expect(server.acceptedLocationIDs == upload.locationIDs)
        #expect(server.uniqueAcceptedLocationIDs == Set(upload.locationIDs))
        #expect(server.requestCount == 1)
        #expect(server.malformedCount == 0)
    }

    @Test("the rule can fail each device's first upload with 500 and let its retry pass")
    func ruleFailsFirstUploadPerDevice() async throws {
        let server = try IngestTestServer()
        server.setRule { context in
            context.priorUploads == 0
                ? .init(status: 500, headers: [("Retry-After", "1")]) : .init(status: 200)
        }
        let transport = try HTTPTransport()
        defer { transport.shutdown() }
        let devices = ["install-a", "install-b"]
        let payloads = devices.enumerated().map { index, device in
            Self.payload(installID: device, batch: UInt64(index), count: 3)
        }
        // Each device sends its batch, then retries the same batch (same batch_id), as the SDK does on a 5xx.
        var statuses: [[Int?]] = []
        for (device, payload) in zip(devices, payloads) {
            let request = try Self.upload(payload.encoded(), to: server.url, device: device)
            let first = await Self.send(transport, request)
            #expect(first.header("Retry-After") == "1")
            let second = await Self.send(transport, request)
            statuses.append([first.status, second.status])
        }
        #expect(statuses == [[500, 200], [500, 200]])
        let uploads = server.uploads
        #expect(uploads.map(\.installID) == ["install-a", "install-a", "install-b", "install-b"])
        #expect(uploads.map(\.status) == [500, 200, 500, 200])
        #expect(uploads[0].batchID == uploads[1].batchID)
        #expect(uploads[0].platform == "android")
        #expect(uploads[0].extras == ["user_id": "u-install-a"])
        #expect(uploads[0].triggers == ["interval", "interval", "interval"])
        #expect(uploads[0].timestamps.first == "2026-06-15T12:34:10.000Z")
        let expectedIDs = payloads.flatMap { $0.locations.map(\.id.description) }
        #expect(server.acceptedLocationIDs == expectedIDs)
        #expect(server.uniqueAcceptedLocationIDs.count == 6)
        let delivered = await server.waitUntil(timeoutSeconds: 1) { $0.acceptedLocationIDs.count == 6 }
        #expect(delivered)
        let impossible = await server.waitUntil(timeoutSeconds: 0.05) { $0.uploads.count > 4 }
        #expect(!impossible)
    }

    @Test("a body that does not gunzip or parse is answered 400 and counted as malformed")
    func malformedBodies() async throws {
        let server = try IngestTestServer()
        let transport = try HTTPTransport()
        defer { transport.shutdown() }
        var notGzip = try Self.upload([], to: server.url, device: "d1")
        notGzip.body = Array("plainly not gzip".utf8)
        let notJSON = try Self.upload(Array("{\"locations\": [".utf8), to: server.url, device: "d1")
        let noDevice = try Self.upload(
            Array(#"{"batch_id":"b","locations":[]}"#.utf8), to: server.url, device: "d1")
        for request in [notGzip, notJSON, noDevice] {
            #expect(await Self.send(transport, request).status == 400)
        }
        #expect(server.malformedCount == 3)
        #expect(server.uploads.isEmpty)
        #expect(server.acceptedLocationIDs.isEmpty)
        #expect(server.malformedUploads.map(\.body) == [notGzip.body, notJSON.body, noDevice.body])
        #expect(server.malformedUploads[2].reason.contains("device"))
        #expect(server.requestCount == 3)
    }

    @Test("the token endpoint issues tok-N, records each request, and can be scripted")
    func tokenEndpoint() async throws {
        let server = try IngestTestServer()
        let transport = try HTTPTransport()
        defer { transport.shutdown() }
        let request = HTTPRequest(
            url: server.tokenURL,
            headers: [
                ("Content-Type", "application/x-www-form-urlencoded"),
                ("Authorization", "Bearer old"),
            ],
            body: Array("grant_type=refresh_token&refresh_token=r%2B1".utf8), timeoutMillis: 5000,
            connectionKey: "d1")
        var bodies: [[String: Any]] = []
        for _ in 0..<2 {
            let result = await Self.send(transport, request)
            #expect(result.status == 200)
            guard case .response(_, _, let body, _) = result else { continue }
            bodies.append(
                try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]))
        }
        #expect(bodies.map { $0["access_token"] as? String } == ["tok-1", "tok-2"])
        #expect(bodies.map { $0["expires_in"] as? Int } == [3600, 3600])

        server.setTokenRule { _ in .init(status: 503, body: Array("busy".utf8)) }
        #expect(await Self.send(transport, request).status == 503)

        let tokens = server.tokenRequests
        #expect(tokens.map(\.number) == [1, 2, 3])
        #expect(tokens.map(\.status) == [200, 200, 503])
        #expect(tokens[0].formFields == ["grant_type": "refresh_token", "refresh_token": "r+1"])
        #expect(tokens[0].headers["authorization"] == "Bearer old")
        #expect(server.requestCount == 3)
        #expect(server.uploads.isEmpty)
    }

    @Test("unknown paths get 404 and a GET on the ingest path gets 405")
    func otherRequests() async throws {
        let server = try IngestTestServer()
        let transport = try HTTPTransport()
        defer { transport.shutdown() }
        let missing = HTTPRequest(
            url: "http://127.0.0.1:\(server.port)/nope", timeoutMillis: 5000, connectionKey: "d1")
        let get = HTTPRequest(url: server.url, method: "GET", timeoutMillis: 5000, connectionKey: "d1")
        #expect(await Self.send(transport, missing).status == 404)
        #expect(await Self.send(transport, get).status == 405)
        #expect(server.requestCount == 2)
        #expect(server.uploads.isEmpty && server.malformedCount == 0)
    }

    @Test("two thousand devices uploading at once are all recorded")
    func concurrentDevices() async throws {
        // Every answer waits, so all the connections are open at the same time.
        let server = try IngestTestServer(rule: { _ in .init(status: 200, delayMillis: 100) })
        let transport = try HTTPTransport(maxConcurrentTransfers: 0)
        defer { transport.shutdown() }
        let count = 2000
        let requests = try (0..<count).map { index in
            let payload = Self.payload(installID: "install-\(index)", batch: UInt64(index), count: 2)
            return try Self.upload(payload.encoded(), to: server.url, device: "d\(index)")
        }
        await withTaskGroup(of: Int?.self) { group in
            for request in requests {
                group.addTask { await Self.send(transport, request).status }
            }
            for await status in group { #expect(status == 200) }
        }
        #expect(await server.waitUntil(timeoutSeconds: 5) { $0.uploads.count == count })
        #expect(server.uniqueAcceptedLocationIDs.count == count * 2)
        #expect(Set(server.uploads.map(\.installID)).count == count)
    }
}
