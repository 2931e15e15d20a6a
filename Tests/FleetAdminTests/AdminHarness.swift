import BeekonDevice
import BeekonNet
import FleetAdmin
import FleetDescription
import FleetEngine
import FleetRuntime
import Foundation
import HTTPMessage
import HTTPTypes
import IngestReceiver
import Logging
import Synchronization
import Testing

/// The admin server on 127.0.0.1, port 0, spoken to over real HTTP by a libcurl client, in
/// front of a small fleet (iOS walkers): what every test here starts from. The fleet is the
/// simulated driver unless a test asks for a real one: virtual time moves only when the test
/// says (`simulated.advance(byMillis:)`), and every upload is answered by `network`, so what
/// the API shows can be asserted exactly.
final class AdminHarness: Sendable {
    /// The fleet behind the admin server.
    enum Fleet {
        /// `SimulatedRuntime` on virtual time alone, its uploads answered by the function.
        case simulated(@Sendable (SimulatedRequest) -> SimulatedAnswer)
        /// A real `FleetRuntime` (wall clock × warp, libcurl) uploading to an in-process
        /// IngestReceiver; its loop starts at once unless `started` is false (see `RealFleet.start`).
        case real(started: Bool)
    }

    /// The fleet file's `clock.start`, 2026-06-15T08:00:00Z: where virtual time starts.
    static let start: Int64 = 1_781_510_400_000
    /// How long the default simulated network takes to answer 200, virtual ms.
    static let latencyMillis: Int64 = 80
    /// The default simulated network: every request is answered 200 after `latencyMillis`.
    static let answersOK: @Sendable (SimulatedRequest) -> SimulatedAnswer = { _ in
        .respond(status: 200, afterMillis: latencyMillis)
    }

    let folder: String
    /// The fleet the admin server drives.
    let control: any FleetControl
    let admin: AdminServer
    let transport: HTTPTransport
    let token: String?
    private let simulatedFleet: SimulatedRuntime?
    private let realFleet: RealFleet?

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

    init(
        devices: Int = 4, warp: Int = 120, duration: String? = nil, token: String? = nil, allowedHosts: [String] = [],
        maxOpenStores: Int? = nil, faults: String = "",
        fleet: Fleet = .simulated(answersOK), loops: Int = 1, logger: Logger = Logger(label: "beekon-fleet admin")
    ) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("beekon-admin-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var csv = "lat,lon\n"
        for index in 0...40 { csv += "\(51.5 + Double(index) * 0.00045),-0.12\n" }
        try csv.write(toFile: folder + "/walk.csv", atomically: true, encoding: .utf8)
        switch fleet {
        case .simulated(let network):
            let file = try FleetFile.parse(
                yaml: Self.yaml(
                    devices: devices, ingest: "http://ingest.invalid/ingest", warp: warp, duration: duration) + "\n"
                    + faults,
                file: "fleet.yaml", routeFolder: folder)
            var options = RunOptions(dataDirectory: folder + "/data", routeFolder: folder)
            // The simulated network's latencies are what these tests state: timed as answered.
            if file.clock.timing == .auto, file.clock.warp != .max { options.timing = .asAnswered }
            if let maxOpenStores { options.maxOpenStores = maxOpenStores }
            let runtime = try SimulatedRuntime(
                fleet: file, options: options, network: network
            )
            simulatedFleet = runtime
            realFleet = nil
            control = runtime
        case .real(let started):
            let real = try RealFleet(folder: folder, devices: devices, warp: warp, duration: duration, loops: loops)
            simulatedFleet = nil
            realFleet = real
            control = real.runtime
            if started { real.start() }
        }
        self.token = token
        var configuration = AdminConfiguration(port: 0, token: token, allowedHosts: allowedHosts)
        // A real fleet's loops share the machine with every other test: a command waiting for
        // every device to stand at one instant is given a minute, not a busy client's 8 s.
        if realFleet != nil { configuration.commandTimeoutMillis = 60_000 }
        admin = try AdminServer(runtime: control, configuration: configuration, logger: logger)
        transport = try HTTPTransport()
    }

    deinit {
        admin.stop()
        simulatedFleet?.finish()
        realFleet?.stop()
        transport.shutdown()
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// The simulated fleet (the default).
    var simulated: SimulatedRuntime {
        guard let simulatedFleet else { preconditionFailure("this harness runs a real fleet") }
        return simulatedFleet
    }

    /// The real fleet (`fleet: .real`).
    var real: RealFleet {
        guard let realFleet else { preconditionFailure("this harness runs a simulated fleet") }
        return realFleet
    }

    var base: String { "http://127.0.0.1:\(admin.port)" }

    /// `start` plus `offset` ms as the API writes instants: `2026-06-15T08:00:03.080Z`.
    static func time(_ offset: Int64) -> String {
        Timestamp.text(unixMillis: start + offset)
    }

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
    /// Every answer is checked against the served OpenAPI document (`OpenAPIContract`): an
    /// exchange the document does not describe is an issue of the calling test.
    func call(
        _ method: String, _ path: String, body: String? = nil, token: String? = nil,
        headers extra: [(name: String, value: String)] = [], sourceLocation: SourceLocation = #_sourceLocation
    ) async -> Answer {
        var headers: [(name: String, value: String)] = []
        if let bearer = token ?? self.token, !bearer.isEmpty { headers.append(("Authorization", "Bearer \(bearer)")) }
        if body != nil { headers.append(("Content-Type", "application/json")) }
        headers.removeAll { header in extra.contains { $0.name.lowercased() == header.name.lowercased() } }
        headers += extra
        let request = OutboundRequest(
            url: base + path, method: HTTPRequest.Method(method) ?? .get, headerFields: HTTPFields(textPairs: headers),
            body: Array((body ?? "").utf8), timeoutMillis: realFleet == nil ? 15_000 : 75_000,
            connectionKey: UUID().uuidString)
        let result = await withCheckedContinuation { continuation in
            transport.submit(request) { continuation.resume(returning: $0) }
        }
        guard case .response(let response, let bytes, _) = result else {
            return Answer(status: 0, headers: [], body: Array("\(result)".utf8), json: nil)
        }
        let answer = Answer(
            status: response.status.code, headers: response.headerFields.textPairs, body: bytes,
            json: try? JSONSerialization.jsonObject(with: Data(bytes)))
        let sent = request.head.headerFields.textPairs
        for problem in OpenAPIContract.problems(method, path, request: (sent, body), answer: answer) {
            Issue.record(Comment(rawValue: problem), sourceLocation: sourceLocation)
        }
        return answer
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

    /// `GET /api/v1/devices/{id}`.
    func device(_ id: String) async -> [String: Any] {
        await call("GET", "/api/v1/devices/\(id)").object
    }

    /// A device's state history as the API lists it: (instant text, state), oldest first.
    func history(_ id: String) async -> [Change] {
        let changes = await device(id)["stateHistory"] as? [[String: Any]] ?? []
        return changes.map { Change(at: $0["at"] as? String ?? "?", state: $0["state"] as? String ?? "?") }
    }

    /// One entry of a state history.
    struct Change: Equatable, CustomStringConvertible {
        var at: String
        var state: String
        var description: String { "\(state)@\(at)" }
    }

    /// The uploads the simulated fleet sent, in order (refreshes left out).
    var uploadsSent: [SimulatedRequest] {
        simulated.sent.filter { if case .upload = $0.kind { true } else { false } }
    }

    /// Reads the raw HTTP stream (SSE) at `path` until `done` holds for what arrived, or
    /// `seconds` pass, on a thread of its own; returns what arrived.
    func readStream(
        _ path: String, headers: [String] = [], seconds: Double = 10, until done: @escaping @Sendable (String) -> Bool,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async -> String {
        let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers.map { $0 + "\r\n" }.joined() + "\r\n"
        let raw = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: self.converse(request, seconds: seconds, until: done)) }.start()
        }
        // Checked here, in the test's task: an issue recorded on the reading thread has no test.
        check(request, raw, sourceLocation)
        return raw
    }

    /// Sends `request` as it is over one new connection (any header, or none, e.g. no `Host`) and
    /// returns what arrived until the server closed it or `seconds` passed; the answer is checked
    /// against the served OpenAPI document, as `call` checks its answers.
    func exchange(_ request: String, seconds: Double, sourceLocation: SourceLocation = #_sourceLocation) -> String {
        let raw = converse(request, seconds: seconds)
        check(request, raw, sourceLocation)
        return raw
    }

    /// Records what of a raw exchange the served document does not describe: the status and
    /// headers, and the body once all of it (its Content-Length) arrived; an event stream's never does.
    private func check(_ request: String, _ raw: String, _ sourceLocation: SourceLocation) {
        func parts(_ message: String) -> (head: [String], body: String)? {
            guard let end = message.range(of: "\r\n\r\n") else { return nil }
            return (message[..<end.lowerBound].components(separatedBy: "\r\n"), String(message[end.upperBound...]))
        }
        func headers(_ lines: [String]) -> [(name: String, value: String)] {
            lines.dropFirst().compactMap { line in
                line.firstIndex(of: ":").map {
                    (String(line[..<$0]), line[line.index(after: $0)...].trimmingCharacters(in: .whitespaces))
                }
            }
        }
        guard let sent = parts(request), let answered = parts(raw),
            let requestLine = sent.head.first?.split(separator: " "), requestLine.count == 3,
            let status = answered.head.first?.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return }  // No answer: the test's own expectations say what was due.
        let answerHeaders = headers(answered.head)
        let length = answerHeaders.first { $0.name.lowercased() == "content-length" }.flatMap { Int($0.value) }
        let body = Array(answered.body.utf8)
        let answer = Answer(status: status, headers: answerHeaders, body: body, json: nil)
        let problems = OpenAPIContract.problems(
            String(requestLine[0]), String(requestLine[1]),
            request: (headers(sent.head), sent.body.isEmpty ? nil : sent.body), answer: answer,
            bodyRead: length.map { body.count >= $0 } ?? false)
        let eventProblems =
            answerHeaders.contains { $0.name.lowercased() == "content-type" && $0.value == "text/event-stream" }
            ? OpenAPIContract.eventProblems(AdminServerTests.dechunked(raw)) : []
        for problem in problems + eventProblems {
            Issue.record(Comment(rawValue: problem), sourceLocation: sourceLocation)
        }
    }

    /// Sends `request` over one new connection and returns what arrived until the server closed
    /// it, `done` held for it, or `seconds` passed.
    private func converse(_ request: String, seconds: Double, until done: (String) -> Bool = { _ in false }) -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = admin.port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
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
            if count > 0 {
                received += buffer[0..<count]
                if done(String(decoding: received, as: UTF8.self)) { break }
            } else if count == 0 {
                break
            }
        }
        return String(decoding: received, as: UTF8.self)
    }
}

/// A real fleet for the tests that need one: `FleetRuntime` on the wall clock at the fleet's
/// warp, its uploads going over libcurl to an in-process IngestReceiver, its loop on a thread
/// of its own.
final class RealFleet: Sendable {
    let receiver: IngestReceiver
    let runtime: FleetRuntime
    private let started = Mutex(false)
    private let ended = DispatchSemaphore(value: 0)

    init(folder: String, devices: Int, warp: Int, duration: String?, loops: Int = 1) throws {
        receiver = try IngestReceiver(
            configuration: IngestReceiverConfiguration(port: 0, databasePath: folder + "/ingest.db", threads: 2))
        let fleet = try FleetFile.parse(
            yaml: AdminHarness.yaml(devices: devices, ingest: receiver.url, warp: warp, duration: duration),
            file: "fleet.yaml",
            routeFolder: folder)
        var options = RunOptions(
            dataDirectory: folder + "/data", realDurationMillis: 120_000, routeFolder: folder,
            transferTiming: .deterministic)
        options.loops = loops
        runtime = try FleetRuntime(fleet: fleet, options: options)
    }

    /// Starts the loop and returns once it has published its first snapshot (its stores are
    /// open and it takes commands).
    func start() {
        guard
            !started.withLock({ started in
                defer { started = true }
                return started
            })
        else { return }
        let runtime = runtime
        let ended = ended
        Thread {
            _ = try? runtime.run(progressEverySeconds: 3600)
            ended.signal()
        }.start()
        let deadline = Date().addingTimeInterval(20)
        while runtime.snapshot.sequence == 0, Date() < deadline { usleep(5_000) }
    }

    /// Waits until the run is over (its duration reached, or `stop`), its uploads drained.
    func waitForEnd() async {
        let ended = ended
        await withCheckedContinuation { continuation in
            Thread {
                ended.wait()
                ended.signal()
                continuation.resume()
            }.start()
        }
    }

    /// Stops the run (if it started) and waits for its end; then the receiver.
    func stop() {
        runtime.stop()
        if started.withLock({ $0 }) {
            ended.wait()
            ended.signal()
        }
        receiver.stop()
    }
}
