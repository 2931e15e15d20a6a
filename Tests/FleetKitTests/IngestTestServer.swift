import BeekonNet
import CMicroHTTPD
import Foundation
import Synchronization

/// A seed-05 ingest backend on 127.0.0.1, port 0, for FleetKit's tests: it gunzips and parses
/// every upload POSTed to `/ingest`, records what arrived, answers with a scriptable status, and
/// issues bearer tokens from `/oauth/token`.
///
/// Sendable: all of its state, the daemon's address included, is in one `Mutex` (held by `Core`).
final class IngestTestServer: Sendable {
    /// What the rule is told about one well-formed upload.
    struct UploadContext: Sendable {
        /// `device.install_id`.
        var installID: String
        /// Well-formed uploads this install made before this one, whatever they were answered.
        var priorUploads: Int
        var batchID: String
        /// Request header values by lower-cased name (e.g. `authorization`).
        var headers: [String: String]
    }

    /// How to answer one upload.
    struct Answer: Sendable {
        var status = 200
        /// Extra response headers, e.g. `("Retry-After", "30")`.
        var headers: [(name: String, value: String)] = []
        /// Waits this long after recording the upload and before answering, without the lock.
        var delayMillis = 0
    }

    /// Decides the answer to an upload; called on the connection's thread, outside the lock.
    typealias Rule = @Sendable (UploadContext) -> Answer

    /// One well-formed upload as the server saw it.
    struct Upload: Sendable, Hashable {
        var installID: String
        var platform: String
        var batchID: String
        var sessionID: String
        var sentAt: String
        /// `locations[].id`, in payload order.
        var locationIDs: [String]
        /// `locations[].trigger`, parallel to `locationIDs`.
        var triggers: [String]
        /// `locations[].timestamp`, parallel to `locationIDs`.
        var timestamps: [String]
        /// `geofence_events[].id`, in payload order.
        var geofenceEventIDs: [String]
        /// `extras`, empty when the payload omits it.
        var extras: [String: String]
        /// Request header values by lower-cased name.
        var headers: [String: String]
        /// The status the server answered.
        var status: Int

        /// Whether the server answered 2xx, i.e. told the device to delete these rows.
        var accepted: Bool { (200..<300).contains(status) }
    }

    /// An upload answered 400 because its body did not gunzip, parse, or match seed 05's shape.
    struct MalformedUpload: Sendable, Hashable {
        /// What was wrong, for a failing test's message.
        var reason: String
        var headers: [String: String]
        /// The body as received (still gzipped if it was).
        var body: [UInt8]
    }

    /// What the token rule is told about one request to `/oauth/token`.
    struct TokenContext: Sendable {
        /// 1 for the first token request, 2 for the next, …; the `N` of the default `tok-N`.
        var number: Int
        var body: [UInt8]
        /// Request header values by lower-cased name.
        var headers: [String: String]
    }

    /// How to answer one token request.
    struct TokenAnswer: Sendable {
        var status = 200
        var body: [UInt8] = []
        var headers: [(name: String, value: String)] = [("Content-Type", "application/json")]
        var delayMillis = 0

        /// 200 with `{"access_token": "tok-N", "expires_in": 3600}`.
        static func granted(_ number: Int, expiresIn: Int = 3600) -> TokenAnswer {
            TokenAnswer(
                body: Array(#"{"access_token":"tok-\#(number)","expires_in":\#(expiresIn)}"#.utf8))
        }
    }

    /// Decides the answer to a token request; called outside the lock.
    typealias TokenRule = @Sendable (TokenContext) -> TokenAnswer

    /// One request to `/oauth/token`.
    struct TokenRequest: Sendable, Hashable {
        var number: Int
        var body: [UInt8]
        var headers: [String: String]
        var status: Int

        /// The body as UTF-8 text.
        var bodyText: String { String(decoding: body, as: UTF8.self) }

        /// The body read as `application/x-www-form-urlencoded` (the SDK's default refresh format).
        var formFields: [String: String] {
            var fields: [String: String] = [:]
            for pair in bodyText.split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                func decode(_ text: Substring) -> String {
                    let spaced = text.replacingOccurrences(of: "+", with: " ")
                    return spaced.removingPercentEncoding ?? spaced
                }
                fields[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
            }
            return fields
        }
    }

    /// Everything recorded so far, copied out under the lock in one go.
    struct Snapshot: Sendable {
        /// Well-formed uploads in the order they were answered.
        var uploads: [Upload]
        var malformedUploads: [MalformedUpload]
        var tokenRequests: [TokenRequest]
        /// Every complete request, to any path.
        var requestCount: Int

        var malformedCount: Int { malformedUploads.count }

        /// Location ids of uploads answered 2xx, in order, duplicates (re-sent batches) kept.
        var acceptedLocationIDs: [String] { uploads.filter(\.accepted).flatMap(\.locationIDs) }

        var uniqueAcceptedLocationIDs: Set<String> { Set(acceptedLocationIDs) }
    }

    enum ServerError: Error { case startFailed }

    private struct State {
        var rule: Rule
        var tokenRule: TokenRule
        var uploads: [Upload] = []
        var malformedUploads: [MalformedUpload] = []
        var tokenRequests: [TokenRequest] = []
        var requestCount = 0
        var tokenNumber = 0
        /// Well-formed uploads per install id, counted when they arrive (before the rule runs).
        var uploadsByInstall: [String: Int] = [:]
        // The daemon's address: a plain integer, because a pointer is not Sendable.
        var daemon = 0
        var port: UInt16 = 0
    }

    /// The state the daemon's threads reach through their context pointer. A separate object so
    /// the server's own deinit never races a handler: the server keeps it alive until the daemon
    /// has stopped.
    private final class Core: Sendable {
        let state: Mutex<State>

        init(_ state: State) { self.state = Mutex(state) }
    }

    /// Collects one request's headers and body across the access handler's calls.
    private final class RequestBox {
        var headers: [String: String] = [:]
        var body: [UInt8] = []
    }

    private let core: Core

    /// The port the server listens on.
    var port: UInt16 { core.state.withLock { $0.port } }

    /// `http://127.0.0.1:PORT/ingest`, the URL for `SyncConfig.url`.
    var url: String { "http://127.0.0.1:\(port)/ingest" }

    /// `http://127.0.0.1:PORT/oauth/token`, the URL for `AuthConfig.refreshUrl`.
    var tokenURL: String { "http://127.0.0.1:\(port)/oauth/token" }

    /// Starts listening.
    ///
    /// - Parameters:
    ///   - rule: answers each well-formed upload; 200 by default.
    ///   - tokenRule: answers each token request; `tok-N` for an hour by default.
    init(
        rule: @escaping Rule = { _ in Answer() },
        tokenRule: @escaping TokenRule = { TokenAnswer.granted($0.number) }
    ) throws {
        core = Core(State(rule: rule, tokenRule: tokenRule))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let context = Unmanaged.passUnretained(core).toOpaque()  // Unretained: deinit stops the daemon before core goes.
        // A thread per connection, so one answer's delay never holds up another device's upload.
        let flags =
            MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_THREAD_PER_CONNECTION.rawValue
            | MHD_USE_POLL.rawValue
        let completed: MHD_RequestCompletedCallback = { _, _, requestContext, _ in
            // A request cut off mid-body never reaches the handler's last call: free its box here.
            guard let requestContext, let box = requestContext.pointee else { return }
            Unmanaged<RequestBox>.fromOpaque(box).release()  // Balances the handler's passRetained.
            requestContext.pointee = nil
        }
        let started = withUnsafeMutablePointer(to: &address) { addressPointer in
            var options = [
                MHD_OptionItem(option: .CONNECTION_TIMEOUT, value: 60, ptr_value: nil),
                // poll() has no FD_SETSIZE bound, so thousands of devices can hold a connection.
                MHD_OptionItem(option: .CONNECTION_LIMIT, value: 8192, ptr_value: nil),
                // A fleet starting at once connects in a burst; the default backlog drops some.
                MHD_OptionItem(option: .LISTEN_BACKLOG_SIZE, value: 4096, ptr_value: nil),
                // Thousands of threads at the default 8 MiB of stack each would be a lot of address space.
                MHD_OptionItem(option: .THREAD_STACK_SIZE, value: 1 << 20, ptr_value: nil),
                MHD_OptionItem(
                    option: .NOTIFY_COMPLETED, value: unsafeBitCast(completed, to: Int.self),
                    ptr_value: nil),
                MHD_OptionItem(
                    option: .SOCK_ADDR, value: 0, ptr_value: UnsafeMutableRawPointer(addressPointer)),
                MHD_OptionItem(option: .END, value: 0, ptr_value: nil),
            ]
            return options.withUnsafeMutableBufferPointer { buffer in
                beekon_mhd_start_daemon(
                    UInt32(flags), 0, nil, nil, IngestTestServer.handle, context, buffer.baseAddress)
            }
        }
        guard let daemon = started else { throw ServerError.startFailed }
        let port = beekon_mhd_daemon_port(daemon)
        let daemonAddress = Int(bitPattern: daemon)
        core.state.withLock { state in
            state.daemon = daemonAddress
            state.port = port
        }
    }

    deinit {
        stop()
    }

    /// Stops listening and closes every connection; waits for answers in progress. Idempotent.
    func stop() {
        let address = core.state.withLock { state in
            defer { state.daemon = 0 }
            return state.daemon
        }
        if let daemon = OpaquePointer(bitPattern: address) { MHD_stop_daemon(daemon) }
    }

    /// Replaces the upload rule; requests already past the rule keep their answer.
    func setRule(_ rule: @escaping Rule) {
        core.state.withLock { $0.rule = rule }
    }

    /// Replaces the token rule.
    func setTokenRule(_ rule: @escaping TokenRule) {
        core.state.withLock { $0.tokenRule = rule }
    }

    /// Everything recorded so far.
    var snapshot: Snapshot {
        core.state.withLock { state in
            Snapshot(
                uploads: state.uploads, malformedUploads: state.malformedUploads,
                tokenRequests: state.tokenRequests, requestCount: state.requestCount)
        }
    }

    var uploads: [Upload] { core.state.withLock { $0.uploads } }
    var malformedUploads: [MalformedUpload] { core.state.withLock { $0.malformedUploads } }
    var malformedCount: Int { core.state.withLock { $0.malformedUploads.count } }
    var acceptedLocationIDs: [String] { snapshot.acceptedLocationIDs }
    var uniqueAcceptedLocationIDs: Set<String> { snapshot.uniqueAcceptedLocationIDs }
    var tokenRequests: [TokenRequest] { core.state.withLock { $0.tokenRequests } }
    var requestCount: Int { core.state.withLock { $0.requestCount } }

    /// Polls every 10 ms until `condition` holds for a snapshot (true) or the time is up (false),
    /// suspending rather than blocking, for async tests.
    func waitUntil(timeoutSeconds: Double, _ condition: (Snapshot) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int64(timeoutSeconds * 1000))
        while true {
            if condition(snapshot) { return true }
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Polls every 10 ms until `condition` holds for a snapshot (true) or the time is up (false),
    /// blocking the calling thread, for synchronous callers.
    func waitUntil(timeoutSeconds: Double, _ condition: (Snapshot) -> Bool) -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int64(timeoutSeconds * 1000))
        while true {
            if condition(snapshot) { return true }
            if ContinuousClock.now >= deadline { return false }
            usleep(10_000)
        }
    }

    // MARK: - Handling requests

    /// A response for MHD to send.
    private struct Reply {
        var status: Int
        var headers: [(name: String, value: String)] = []
        var body: [UInt8] = []
        var delayMillis = 0
    }

    private static let handle: MHD_AccessHandlerCallback = {
        context, connection, url, method, _, uploadData, uploadSize, requestContext in
        let core = Unmanaged<Core>.fromOpaque(context!).takeUnretainedValue()  // Owned by the server.
        guard let requestContext, let uploadSize else { return MHD_Result.NO }
        guard let boxPointer = requestContext.pointee else {
            // The first call for a request carries only its head.
            let box = RequestBox()
            withUnsafeMutablePointer(to: &box.headers) { headers in
                _ = MHD_get_connection_values(
                    connection, .HEADER_KIND,
                    { headers, _, key, value in
                        guard let key else { return MHD_Result.YES }
                        let name = String(cString: key).lowercased()
                        headers!.assumingMemoryBound(to: [String: String].self).pointee[name] =
                            value.map { String(cString: $0) } ?? ""
                        return MHD_Result.YES
                    }, headers)
            }
            // Retained until the last call for this request (or the completion callback) takes it back.
            requestContext.pointee = Unmanaged.passRetained(box).toOpaque()  // MHD holds it between calls.
            return MHD_Result.YES
        }
        let box = Unmanaged<RequestBox>.fromOpaque(boxPointer)  // Retained by the first call.
        if uploadSize.pointee > 0 {
            box.takeUnretainedValue().body.append(
                contentsOf: UnsafeRawBufferPointer(start: uploadData, count: uploadSize.pointee))
            uploadSize.pointee = 0
            return MHD_Result.YES
        }
        let request = box.takeRetainedValue()
        requestContext.pointee = nil
        let methodName = method.map { String(cString: $0) } ?? ""
        let path = url.map { String(cString: $0) } ?? ""
        core.state.withLock { $0.requestCount += 1 }
        let reply: Reply
        switch (methodName, path) {
        case ("POST", "/ingest"): reply = ingest(request, core: core)
        case ("POST", "/oauth/token"): reply = token(request, core: core)
        case (_, "/ingest"), (_, "/oauth/token"): reply = Reply(status: 405)
        default: reply = Reply(status: 404)
        }
        if reply.delayMillis > 0 { usleep(UInt32(reply.delayMillis) * 1000) }
        let response = reply.body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(
                bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
        }
        for header in reply.headers {
            _ = MHD_add_response_header(response, header.name, header.value)
        }
        let queued = MHD_queue_response(connection, UInt32(reply.status), response)
        MHD_destroy_response(response)
        return queued
    }

    /// Records one upload and decides its answer; the slow parts run outside the lock.
    private static func ingest(_ request: RequestBox, core: Core) -> Reply {
        var upload: Upload
        do {
            upload = try parse(request)
        } catch {
            core.state.withLock {
                $0.malformedUploads.append(
                    MalformedUpload(reason: error.reason, headers: request.headers, body: request.body))
            }
            return Reply(status: 400)
        }
        let (rule, prior) = core.state.withLock { state in
            let prior = state.uploadsByInstall[upload.installID, default: 0]
            state.uploadsByInstall[upload.installID] = prior + 1
            return (state.rule, prior)
        }
        // The rule is test code: run it unlocked, so it may read the server without deadlocking.
        let answer = rule(
            UploadContext(
                installID: upload.installID, priorUploads: prior, batchID: upload.batchID,
                headers: request.headers))
        upload.status = answer.status
        // Recorded before the delay, as a server that commits and then answers slowly would.
        core.state.withLock { $0.uploads.append(upload) }
        return Reply(status: answer.status, headers: answer.headers, delayMillis: answer.delayMillis)
    }

    /// Records one token request and decides its answer.
    private static func token(_ request: RequestBox, core: Core) -> Reply {
        let (rule, number) = core.state.withLock { state in
            state.tokenNumber += 1
            return (state.tokenRule, state.tokenNumber)
        }
        let answer = rule(TokenContext(number: number, body: request.body, headers: request.headers))
        core.state.withLock {
            $0.tokenRequests.append(
                TokenRequest(
                    number: number, body: request.body, headers: request.headers,
                    status: answer.status))
        }
        return Reply(
            status: answer.status, headers: answer.headers, body: answer.body,
            delayMillis: answer.delayMillis)
    }

    /// Why an upload was refused.
    private struct Malformed: Error {
        var reason: String
    }

    /// The upload in `request`, checked against seed 05's required fields.
    private static func parse(_ request: RequestBox) throws(Malformed) -> Upload {
        var json = request.body
        let encoding = request.headers["content-encoding"]?.trimmingCharacters(in: .whitespaces)
        if encoding?.lowercased() == "gzip" {
            do {
                // One per request: a decompressor has one owner at a time, and each runs on its own thread.
                json = try GzipDecompressor().decompress(request.body)
            } catch {
                throw Malformed(reason: "gunzip failed: \(error)")
            }
        }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(json))
        } catch {
            throw Malformed(reason: "JSON did not parse: \(error.localizedDescription)")
        }
        guard let root = object as? [String: Any] else { throw Malformed(reason: "not a JSON object") }
        func string(
            _ dictionary: [String: Any], _ key: String, in place: String
        ) throws(Malformed) -> String {
            guard let value = dictionary[key] as? String else {
                throw Malformed(reason: "\(place).\(key) is missing or not a string")
            }
            return value
        }
        func array(_ key: String) throws(Malformed) -> [[String: Any]] {
            guard let value = root[key] as? [[String: Any]] else {
                throw Malformed(reason: "\(key) is missing or not an array of objects")
            }
            return value
        }
        guard let device = root["device"] as? [String: Any] else {
            throw Malformed(reason: "device is missing or not an object")
        }
        var extras: [String: String] = [:]
        if let value = root["extras"] {
            guard let map = value as? [String: String] else {
                throw Malformed(reason: "extras is not a string-to-string object")
            }
            extras = map
        }
        let locations = try array("locations")
        let events = try array("geofence_events")
        var upload = Upload(
            installID: try string(device, "install_id", in: "device"),
            platform: try string(device, "platform", in: "device"),
            batchID: try string(root, "batch_id", in: "root"),
            sessionID: try string(root, "session_id", in: "root"),
            sentAt: try string(root, "sent_at", in: "root"),
            locationIDs: [], triggers: [], timestamps: [], geofenceEventIDs: [], extras: extras,
            headers: request.headers, status: 0)
        for location in locations {
            upload.locationIDs.append(try string(location, "id", in: "locations[]"))
            upload.triggers.append(try string(location, "trigger", in: "locations[]"))
            upload.timestamps.append(try string(location, "timestamp", in: "locations[]"))
        }
        for event in events {
            upload.geofenceEventIDs.append(try string(event, "id", in: "geofence_events[]"))
        }
        return upload
    }
}
