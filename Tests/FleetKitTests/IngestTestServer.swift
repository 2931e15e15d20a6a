import BeekonNet
import Foundation
import MicroHTTP
import Synchronization

/// A seed-05 ingest backend on 127.0.0.1, port 0, for FleetKit's tests: it gunzips and parses
/// every upload POSTed to `/ingest`, records what arrived, answers with a scriptable status, and
/// issues bearer tokens from `/oauth/token`.
///
/// Built on `MicroHTTPDaemon`: a delayed answer holds a suspended connection, not a thread.
///
/// Sendable: all of its state is in one `Mutex` (held by `Core`); the daemon is Sendable.
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
        /// Waits this long after recording the upload and before answering (no thread waits).
        var delayMillis = 0
    }

    /// Decides the answer to an upload; called on a daemon thread, outside the lock; must not block.
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
    }

    /// The state the daemon's responder reaches. A separate object so the responder does not
    /// keep the server (and so the daemon) alive.
    private final class Core: Sendable {
        let state: Mutex<State>

        init(_ state: State) { self.state = Mutex(state) }
    }

    private let core: Core
    private let daemon: MicroHTTPDaemon

    /// The port the server listens on.
    var port: UInt16 { daemon.port }

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
        let core = Core(State(rule: rule, tokenRule: tokenRule))
        self.core = core
        // Delayed answers wait on suspended connections, so a few threads serve thousands of
        // devices at once; a rule must not block (none sleeps).
        daemon = try MicroHTTPDaemon(
            host: "127.0.0.1", port: 0, threads: 4, connectionTimeoutSeconds: 60, connectionLimit: 8192,
            maxBodyBytes: 1 << 30, respond: { IngestTestServer.respond(to: $0, core: core) })
    }

    /// Stops listening and closes every connection; answers still waiting out a delay are sent
    /// first. Idempotent.
    func stop() {
        daemon.stop()
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

    /// Routes one request; runs on a daemon thread.
    private static func respond(to request: IncomingRequest, core: Core) -> Disposition {
        core.state.withLock { $0.requestCount += 1 }
        switch (request.method, request.path) {
        case ("POST", "/ingest"): return ingest(request, core: core)
        case ("POST", "/oauth/token"): return token(request, core: core)
        case (_, "/ingest"), (_, "/oauth/token"): return .reply(OutgoingReply(status: 405), delayMillis: 0)
        default: return .reply(OutgoingReply(status: 404), delayMillis: 0)
        }
    }

    /// Records one upload and decides its answer; the slow parts run outside the lock.
    private static func ingest(_ request: IncomingRequest, core: Core) -> Disposition {
        var upload: Upload
        do {
            upload = try parse(request)
        } catch {
            core.state.withLock {
                $0.malformedUploads.append(
                    MalformedUpload(reason: error.reason, headers: request.headers, body: request.body))
            }
            return .reply(OutgoingReply(status: 400), delayMillis: 0)
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
        return .reply(
            OutgoingReply(status: answer.status, headers: answer.headers), delayMillis: answer.delayMillis)
    }

    /// Records one token request and decides its answer.
    private static func token(_ request: IncomingRequest, core: Core) -> Disposition {
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
        return .reply(
            OutgoingReply(status: answer.status, headers: answer.headers, body: answer.body),
            delayMillis: answer.delayMillis)
    }

    /// Why an upload was refused.
    private struct Malformed: Error {
        var reason: String
    }

    /// The upload in `request`, checked against seed 05's required fields.
    private static func parse(_ request: IncomingRequest) throws(Malformed) -> Upload {
        var json = request.body
        let encoding = request.headers["content-encoding"]?.trimmingCharacters(in: .whitespaces)
        if encoding?.lowercased() == "gzip" {
            do {
                // One per request: a decompressor has one owner at a time; requests run on several threads.
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
