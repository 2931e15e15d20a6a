import BeekonNet
import FleetAdmin
import FleetKit
import Foundation
import IngestReceiver
import Synchronization

/// A real small fleet (iOS walkers at a high warp) uploading to an in-process IngestReceiver,
/// with the admin server on 127.0.0.1, port 0, and a libcurl client: what every test here
/// starts from. No mocks.
final class AdminHarness: Sendable {
    let folder: String
    let receiver: IngestReceiver
    let runtime: FleetRuntime
    let admin: AdminServer
    let transport: HTTPTransport
    let token: String?
    private let finished = DispatchSemaphore(value: 0)

    static func yaml(devices: Int, ingest: String, warp: Int, duration: String? = nil) -> String {
        """
        name: admin-test
        seed: 11
        \(duration.map { "duration: \($0)" } ?? "")
        clock: {start: 2026-06-15T08:00:00Z, warp: \(warp)}
        ingest: \(ingest)
        groups:
          - name: walkers
            count: \(devices)
            platform: ios
            model: iPhone15,3
            route: walk.csv
            pace: walk
            startOffset: random
            config:
              preset: precision
              minTimeBetweenLocationsSeconds: 1
              minDistanceBetweenLocationsMeters: 0
              whenStationary: keepTracking
              sync:
                syncThreshold: 3
                intervalSeconds: 60
                headers: {X-Api-Key: secret-header-value}
        """
    }

    init(devices: Int = 4, warp: Int = 120, duration: String? = nil, token: String? = nil, allowedHosts: [String] = []) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("beekon-admin-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var csv = "lat,lon\n"
        for index in 0...40 { csv += "\(51.5 + Double(index) * 0.00045),-0.12\n" }
        try csv.write(toFile: folder + "/walk.csv", atomically: true, encoding: .utf8)
        receiver = try IngestReceiver(
            configuration: IngestReceiverConfiguration(port: 0, databasePath: folder + "/ingest.db", threads: 2))
        let fleet = try FleetFile.parse(
            yaml: Self.yaml(devices: devices, ingest: receiver.url, warp: warp, duration: duration), file: "fleet.yaml", routeFolder: folder)
        runtime = try FleetRuntime(
            fleet: fleet,
            options: RunOptions(
                dataDirectory: folder + "/data", realDurationMillis: 120_000, routeFolder: folder, transferTiming: .deterministic))
        self.token = token
        admin = try AdminServer(runtime: runtime, configuration: AdminConfiguration(port: 0, token: token, allowedHosts: allowedHosts))
        transport = try HTTPTransport()
        let runtime = runtime
        let finished = finished
        let thread = Thread {
            _ = try? runtime.run(progressEverySeconds: 3600)
            finished.signal()
        }
        thread.start()
        // The loop publishes its first snapshot once the stores are ready.
        let deadline = Date().addingTimeInterval(20)
        while runtime.snapshot.sequence == 0, Date() < deadline { usleep(10_000) }
    }

    deinit {
        admin.stop()
        runtime.stop()
        finished.wait()
        transport.shutdown()
        receiver.stop()
        try? FileManager.default.removeItem(atPath: folder)
    }

    var base: String { "http://127.0.0.1:\(admin.port)" }

    /// One answer: status, headers, body, and the body parsed as JSON when it is JSON.
    struct Answer: @unchecked Sendable {  // `json` holds Foundation's JSON objects, read once by one test.
        var status: Int
        var headers: [(name: String, value: String)]
        var body: [UInt8]
        var json: Any?

        var object: [String: Any] { json as? [String: Any] ?? [:] }
        var text: String { String(decoding: body, as: UTF8.self) }
        var errorCode: String? { (object["error"] as? [String: Any])?["code"] as? String }
        var errorField: String? { (object["error"] as? [String: Any])?["field"] as? String }
    }

    /// Sends a request; the harness's token goes along unless `token` says otherwise ("" for none).
    /// `headers` replace the defaults of the same name (`Content-Type: application/json` with a body).
    func call(
        _ method: String, _ path: String, body: String? = nil, token: String? = nil, headers extra: [(name: String, value: String)] = []
    ) async -> Answer {
        var headers: [(name: String, value: String)] = []
        if let bearer = token ?? self.token, !bearer.isEmpty { headers.append(("Authorization", "Bearer \(bearer)")) }
        if body != nil { headers.append(("Content-Type", "application/json")) }
        headers.removeAll { header in extra.contains { $0.name.lowercased() == header.name.lowercased() } }
        headers += extra
        let request = HTTPRequest(
            url: base + path, method: method, headers: headers, body: Array((body ?? "").utf8), timeoutMillis: 15_000,
            connectionKey: UUID().uuidString)
        let result = await withCheckedContinuation { continuation in
            transport.submit(request) { continuation.resume(returning: $0) }
        }
        guard case .response(let status, let headers, let bytes, _) = result else {
            return Answer(status: 0, headers: [], body: Array("\(result)".utf8), json: nil)
        }
        return Answer(status: status, headers: headers, body: bytes, json: try? JSONSerialization.jsonObject(with: Data(bytes)))
    }

    /// Polls `check` every 100 ms until it holds or `seconds` pass; returns whether it held.
    func eventually(seconds: Double = 15, _ check: () async -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if await check() { return true }
            try? await Task.sleep(nanoseconds: 100_000_000)
        }
        return await check()
    }

    /// The listed devices' states by id.
    func states() async -> [String: String] {
        let answer = await call("GET", "/api/v1/devices?limit=1000")
        var states: [String: String] = [:]
        for device in answer.object["devices"] as? [[String: Any]] ?? [] {
            states[device["id"] as? String ?? ""] = device["state"] as? String
        }
        return states
    }

    /// Reads a raw HTTP stream (SSE) for `seconds` and returns what arrived.
    func readStream(_ path: String, headers: [String] = [], seconds: Double) -> String {
        exchange("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers.map { $0 + "\r\n" }.joined() + "\r\n", seconds: seconds)
    }

    /// Sends `request` as it is over one new connection (any header, or none, e.g. no `Host`) and
    /// returns what arrived until the server closed it or `seconds` passed.
    func exchange(_ request: String, seconds: Double) -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = admin.port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return "" }
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        _ = request.withCString { send(fd, $0, strlen($0), 0) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count > 0 { received += buffer[0..<count] } else if count == 0 { break }
        }
        return String(decoding: received, as: UTF8.self)
    }
}
