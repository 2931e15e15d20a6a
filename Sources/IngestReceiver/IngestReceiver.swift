import BeekonDevice
import BeekonNet
import Foundation
import HTTPTypes
import Logging
import MicroHTTP
internal import SQLite
import Synchronization

/// The reference Beekon ingest server: gunzips, validates every rule of seed 05's payload,
/// dedupes on `batch_id` and every row id, stores in SQLite and answers 2xx only after the
/// commit; answers can be scripted (failures, latency, hangs, closes, token checks) to test
/// clients. Embeddable: the fleet runner starts one on loopback when no ingest URL is given.
///
/// Sendable: its parts are the daemon (Sendable) and a core whose state sits behind `Mutex`es.
public final class IngestReceiver: Sendable {
    /// The configuration it was started with (checked).
    public let configuration: IngestReceiverConfiguration
    private let core: ReceiverCore
    private let daemon: MicroHTTPDaemon

    /// Opens the database and starts listening; throws when either fails or a value is bad.
    /// Every answer is logged to `logger` at debug level, with why a request was refused.
    public init(
        configuration: IngestReceiverConfiguration, logger: Logger = Logger(label: "beekon-fleet receiver")
    ) throws(IngestReceiverError) {
        let configuration = try configuration.validated()
        self.configuration = configuration
        let database: IngestDatabase
        do {
            database = try IngestDatabase(path: configuration.databasePath)
        } catch {
            throw IngestReceiverError(.database, "\(configuration.databasePath): \(error.message)")
        }
        let budget = MemoryBudget(limit: configuration.memoryBudgetBytes)
        let core = ReceiverCore(configuration: configuration, database: database, budget: budget, logger: logger)
        self.core = core
        do throws(MicroHTTPError) {
            daemon = try MicroHTTPDaemon(
                host: configuration.host, port: configuration.port, threads: configuration.threads,
                connectionTimeoutSeconds: configuration.connectionTimeoutSeconds,
                connectionLimit: configuration.connectionLimit,
                perIPConnectionLimit: configuration.perIPConnectionLimit, maxBodyBytes: configuration.maxBodyBytes,
                memoryBudget: budget, cutShort: { core.cutShort($0) }, respond: { core.respond(to: $0) })
        } catch {
            throw IngestReceiverError(.listen, error.message)
        }
    }

    deinit {
        stop()
    }

    /// The port it listens on (the one picked when configured with port 0).
    public var port: UInt16 { daemon.port }

    /// `http://HOST:PORT`, with 127.0.0.1 for a wildcard host.
    public var baseURL: String {
        let host = configuration.host == "0.0.0.0" || configuration.host == "*" ? "127.0.0.1" : configuration.host
        return "http://\(host == "localhost" ? "127.0.0.1" : host):\(port)"
    }

    /// The ingest URL, for `SyncConfig.url`.
    public var url: String { baseURL + configuration.ingestPath }

    /// The token endpoint's URL, for `AuthConfig.refreshUrl`; nil when it is off.
    public var tokenURL: String? { configuration.tokenEndpoint.path.map { baseURL + $0 } }

    /// The statistics URL (`GET`, JSON).
    public var statsURL: String { baseURL + configuration.statsPath }

    /// What it has seen since it started.
    public func stats() -> IngestStats { core.stats() }

    /// Every upload the script answered, oldest first (the most recent 100 000); empty unless
    /// the configuration `keepsUploadLog`.
    public func uploadLog() -> [LoggedUpload] {
        let log = core.state.withLock { $0.uploadLog }  // A copy-on-write copy; read outside the lock.
        return log.recent
    }

    /// Request bytes held in the memory budget now (tests wait on it).
    var bytesHeld: Int { core.budget.inUse }

    /// Stops taking uploads (new ones get 503), commits every upload already queued and answers
    /// it, sends answers held for scripted latency at once, closes the database, then stops
    /// listening (hung connections are closed). Idempotent.
    public func stop() {
        core.close()
        daemon.stop()
    }
}

/// The receiver's logic behind the daemon: routing, validation, the script, storage, stats.
///
/// Sendable: its state is behind `Mutex`es and the database is owned by the `IngestWriter`.
private final class ReceiverCore: Sendable {
    struct State {
        var planner: AnswerPlanner
        var recorder = StatsRecorder()
        var tokens: TokenIssuer
        var uploadLog = UploadLog()
    }

    let configuration: IngestReceiverConfiguration
    let validator: PayloadValidator
    /// Request bytes held at once, shared with the daemon: it holds bodies being received, this
    /// holds inflated bodies until they are stored or refused.
    let budget: MemoryBudget
    let state: Mutex<State>
    /// The one writer connection's owner: group commit on a thread of its own.
    let writer: IngestWriter
    /// Answers held for the script's latency after their commit, by number, so `close` can send
    /// them at once; `closed` once it has.
    let delayed = Mutex<Delayed>(Delayed())
    let logger: Logger

    struct Delayed {
        var next: UInt64 = 0
        var replies: [UInt64: (PendingReply, OutgoingReply)] = [:]
        var closed = false
    }

    init(
        configuration: IngestReceiverConfiguration, database: sending IngestDatabase, budget: MemoryBudget,
        logger: Logger
    ) {
        self.configuration = configuration
        self.budget = budget
        self.logger = logger
        validator = PayloadValidator(maxDepth: configuration.maxJSONDepth, maxElements: configuration.maxJSONElements)
        state = Mutex(
            State(
                planner: AnswerPlanner(script: configuration.script, tokens: configuration.tokenEndpoint),
                tokens: TokenIssuer(
                    seed: configuration.script.seed, staticTokens: configuration.auth.tokens,
                    refreshTokens: configuration.tokenEndpoint.refreshTokens)))
        writer = IngestWriter(database: database)
    }

    /// Commits and answers every queued upload (later ones get 503), sends held answers now.
    func close() {
        writer.close()
        let held = delayed.withLock { delayed in
            delayed.closed = true
            defer { delayed.replies = [:] }
            return Array(delayed.replies.values)
        }
        for (pending, reply) in held { pending.send(reply) }
    }

    func stats() -> IngestStats {
        let (stats, ages, answers, skews, rates) = state.withLock {
            ($0.recorder.stats, $0.recorder.ages, $0.recorder.answers, $0.recorder.skews, $0.recorder.bodyRates)
        }
        var copy = stats
        copy.fixAge = IngestStats.Percentiles(ages)  // Sorted outside the lock.
        copy.answerMicros = IngestStats.Percentiles(answers)
        copy.clockSkew = IngestStats.Percentiles(skews)
        copy.uploadBytesPerSecond = IngestStats.Percentiles(rates)
        return copy
    }

    static func wallMillis() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }

    static func error(_ status: Int, _ message: String, headerFields: HTTPFields = [:]) -> OutgoingReply {
        var json = JSONWriter()
        json.beginObject()
        json.key("error")
        json.string(message)
        json.endObject()
        return .json(status, json.bytes, headerFields: headerFields)
    }

    /// A request's connection ended before its body did: counted when it was an upload.
    func cutShort(_ request: CutShortRequest) {
        guard request.path == configuration.ingestPath else { return }
        state.withLock { $0.recorder.cutShort(request) }
    }

    /// Decides the answer to one request; runs on a daemon thread.
    func respond(to request: IncomingRequest) -> Disposition {
        let disposition: Disposition
        if let refusal = Self.framingRefusal(request) {
            if request.path == configuration.ingestPath { state.withLock { $0.recorder.stats.rejectedUploads += 1 } }
            disposition = .reply(refusal, delayMillis: 0)
        } else if request.path == configuration.ingestPath {
            disposition = request.method == "POST" ? ingest(request) : .reply(Self.notAllowed("POST"), delayMillis: 0)
        } else if let tokenPath = configuration.tokenEndpoint.path, request.path == tokenPath {
            disposition = .reply(request.method == "POST" ? token(request) : Self.notAllowed("POST"), delayMillis: 0)
        } else if request.path == configuration.statsPath {
            disposition = .reply(
                request.method == "GET" || request.method == "HEAD"
                    ? .json(200, stats().json(), headerFields: [.cacheControl: "no-store"]) : Self.notAllowed("GET"),
                delayMillis: 0)
        } else if request.path == "/metrics" {
            disposition = .reply(
                request.method == "GET" || request.method == "HEAD"
                    ? OutgoingReply(
                        status: 200,
                        headerFields: [
                            .contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store",
                        ], body: Array(stats().prometheusText().utf8)) : Self.notAllowed("GET"),
                delayMillis: 0)
        } else {
            disposition = .reply(Self.error(404, "no such path: \(request.path.prefix(200))"), delayMillis: 0)
        }
        record(disposition)
        // A stored upload's answer is logged by `finish`, once its commit decided it.
        if case .later = disposition {} else { log(request.method, request.path, disposition) }
        return disposition
    }

    /// Logs an answer at debug level: `POST /ingest: 400 {"error":"body: not valid gzip …"}`,
    /// so a client's author sees why the receiver refused an upload (`receive --log-level debug`);
    /// the statistics' body is left out.
    private func log(_ method: String, _ path: String, _ disposition: Disposition) {
        let summary = disposition.summary(body: path != configuration.statsPath)
        logger.debug("\(method.prefix(20)) \(path.prefix(200)): \(summary)")
    }

    /// Counts an answer in the stats, when it is decided.
    private func record(_ disposition: Disposition) {
        state.withLock { state in
            switch disposition {
            case .reply(let reply, _): state.recorder.answered(reply.status)
            case .hang: state.recorder.stats.hung += 1
            case .close: state.recorder.stats.closedWithoutAnswer += 1
            case .later, .stream: break  // A stored upload is counted by `finish`, after its commit.
            }
        }
    }

    static func notAllowed(_ method: String) -> OutgoingReply {
        error(405, "method not allowed; use \(method)", headerFields: [.allow: method])
    }

    // MARK: Ingest

    private func ingest(_ request: IncomingRequest) -> Disposition {
        let now = Self.wallMillis()
        let arrived = DispatchTime.now().uptimeNanoseconds
        if configuration.auth.requireToken {
            let refusal = state.withLock {
                $0.tokens.check(authorization: request.head.headerFields[.authorization], now: now)
            }
            if let refusal {
                state.withLock { $0.recorder.stats.unauthorizedUploads += 1 }
                return .reply(
                    Self.error(401, "Authorization: \(refusal)", headerFields: [.wwwAuthenticate: "Bearer"]),
                    delayMillis: 0)
            }
        }
        let batch: IngestBatch
        // The inflated body's bytes, held until the batch made from it is stored or refused.
        let reservation = MemoryReservation(budget)
        do {
            batch = try decode(request, reservation: reservation)
        } catch {
            state.withLock { $0.recorder.stats.rejectedUploads += 1 }
            return .reply(error.reply, delayMillis: 0)
        }
        // The planner is consulted here, on arrival, so its draws follow the arrival order; the
        // log is written in the same hold of the lock, so it lists uploads in that order too.
        let plan = state.withLock { state in
            state.recorder.arrived(installID: batch.installID, from: request.clientAddress)
            state.recorder.bodyArrived(bytes: request.body.count, overMicros: request.bodyMicros)
            let plan = state.planner.planUpload(installID: batch.installID)
            if configuration.keepsUploadLog {
                state.uploadLog.append(
                    LoggedUpload(batch, receivedAt: now, scripted: plan.outcome, clientAddress: request.clientAddress))
            }
            return plan
        }
        guard plan.store else { return answer(plan.outcome, batch, nil) }
        // Stored: the writer commits it with whatever else is queued, then `finish` answers.
        let bytes = request.body.count
        let timeout = configuration.script.latencyMillis + configuration.script.hangMillis + Self.commitTimeoutMillis
        return .later(
            timeoutMillis: timeout,
            timeoutReply: Self.error(503, "storage did not answer in time", headerFields: [.retryAfter: "5"])
        ) { [self] pending in
            let job = IngestWriter.Job(batch: batch, receivedAt: now, bytes: bytes) { [self] result in
                reservation.release()
                finish(pending, plan, batch, result, receivedAt: now, arrived: arrived)
            }
            if !writer.submit(job) { finish(pending, plan, batch, nil, receivedAt: now, arrived: arrived) }
        }
    }

    /// How long a stored upload may wait for its commit before the daemon answers 503 itself
    /// (a safety net: nothing 2xx goes out without the commit, and a late 503 is retried).
    static let commitTimeoutMillis = 30_000

    /// Answers a stored upload once the writer is done with it (runs on the writer thread):
    /// records the stats, then sends exactly the answer the upload would get had it been
    /// stored alone — after the commit, with the script's latency, hang or close.
    private func finish(
        _ pending: PendingReply, _ plan: AnswerPlanner.UploadPlan, _ batch: IngestBatch,
        _ result: Result<IngestDatabase.Outcome, SQLiteError>?, receivedAt: Int64, arrived: UInt64
    ) {
        let latency = configuration.script.latencyMillis
        let disposition: Disposition
        switch result {
        case nil:
            disposition = .reply(
                Self.error(503, "the receiver is shutting down", headerFields: [.retryAfter: "5"]), delayMillis: latency
            )
        case .failure(let error):
            disposition = .reply(Self.error(500, "storage failed: \(error.message)"), delayMillis: latency)
        case .success(let outcome):
            state.withLock { $0.recorder.stored(batch, outcome, receivedAt: receivedAt) }
            disposition = answer(plan.outcome, batch, outcome)
        }
        record(disposition)
        log("POST", configuration.ingestPath, disposition)
        switch disposition {
        case .reply(let reply, let delay) where delay > 0:
            let number = delayed.withLock { delayed -> UInt64? in
                guard !delayed.closed else { return nil }
                delayed.next += 1
                delayed.replies[delayed.next] = (pending, reply)
                return delayed.next
            }
            guard let number else { return send(reply, pending, arrived: arrived) }
            // A Dispatch timer, not the cooperative pool: it only hands the answer to the daemon.
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(delay)) { [self] in
                if let (pending, reply) = delayed.withLock({ $0.replies.removeValue(forKey: number) }) {
                    send(reply, pending, arrived: arrived)
                }
            }
        case .reply(let reply, _):
            send(reply, pending, arrived: arrived)
        case .hang(let millis):
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(millis)) { pending.close() }
        case .close:
            pending.close()
        case .later, .stream:
            break  // `answer` never returns these.
        }
    }

    /// Hands a stored upload's answer to the daemon, timing it from the upload's arrival.
    private func send(_ reply: OutgoingReply, _ pending: PendingReply, arrived: UInt64) {
        let micros = Int64((DispatchTime.now().uptimeNanoseconds &- arrived) / 1000)
        state.withLock { $0.recorder.answered(afterMicros: micros) }
        pending.send(reply)
    }

    /// The answer the script gives an upload, with `stored` its outcome when it was stored.
    private func answer(
        _ outcome: ScriptedOutcome?, _ batch: IngestBatch, _ stored: IngestDatabase.Outcome?
    ) -> Disposition {
        let latency = configuration.script.latencyMillis
        switch outcome {
        case .hang: return .hang(millis: configuration.script.hangMillis)
        case .close: return .close
        case .status(let status) where !(200..<300).contains(status):
            let retryAfter: HTTPFields = configuration.script.retryAfter.map { [.retryAfter: $0] } ?? [:]
            return .reply(
                Self.error(status, "scripted answer \(status)", headerFields: retryAfter), delayMillis: latency)
        case .status(let status):
            return .reply(Self.accepted(status, batch, stored), delayMillis: latency)
        case nil:
            return .reply(Self.accepted(200, batch, stored), delayMillis: latency)
        }
    }

    /// An answer other than success, thrown by the steps of an upload.
    struct Refusal: Error {
        var reply: OutgoingReply

        init(_ reply: OutgoingReply) { self.reply = reply }
    }

    /// The answer when the memory budget is spent: the SDK retries after `Retry-After`.
    static func busy() -> OutgoingReply {
        error(
            503, "busy: the receiver's memory budget for request bodies is spent; retry later",
            headerFields: [.retryAfter: "1", .connection: "close"])
    }

    /// The answer to a request whose body cannot be used, on any path: conflicting
    /// `Content-Length`s (400: where the body ends is ambiguous), or the memory budget spent (503).
    static func framingRefusal(_ request: IncomingRequest) -> OutgoingReply? {
        if !request.conflictingContentLengths.isEmpty {
            let values = request.conflictingContentLengths.map { "\"\($0.prefix(20))\"" }.joined(separator: ", ")
            return error(
                400, "Content-Length: the request has several that disagree (\(values)); expected one",
                headerFields: [.connection: "close"])
        }
        return request.bodyOverBudget ? busy() : nil
    }

    /// Gunzips (taking the inflated bytes from `reservation`) and validates; the refusal carries
    /// the 4xx or 503 to send.
    private func decode(_ request: IncomingRequest, reservation: MemoryReservation) throws(Refusal) -> IngestBatch {
        if request.bodyTooLarge {
            throw Refusal(Self.error(413, "body: larger than the limit of \(configuration.maxBodyBytes) bytes"))
        }
        let type = request.head.headerFields[.contentType]?.lowercased() ?? ""
        guard type.split(separator: ";").first?.trimmingCharacters(in: .whitespaces) == "application/json" else {
            throw Refusal(Self.error(415, "Content-Type: expected application/json, got \"\(type.prefix(80))\""))
        }
        var json = request.body
        switch request.head.headerFields[.contentEncoding]?.trimmingCharacters(in: .whitespaces).lowercased() {
        case nil, "", "identity":
            // Held past the daemon's own hold on the body, until the batch is stored.
            guard reservation.grow(json.count) else { throw Refusal(Self.busy()) }
        case "gzip":
            do {
                json = try GzipDecompressor(maxOutputBytes: configuration.maxInflatedBytes).decompress(
                    request.body, admit: reservation.grow)
            } catch  where error.code == GzipError.outputTooLarge {
                throw Refusal(
                    Self.error(
                        413,
                        "body: inflates to more than \(configuration.maxInflatedBytes) bytes (--max-inflated-bytes)"))
            } catch  where error.code == GzipError.outputRefused {
                throw Refusal(Self.busy())
            } catch {
                throw Refusal(Self.error(400, "body: not valid gzip (\(error.message))"))
            }
        case let other?:
            throw Refusal(Self.error(415, "Content-Encoding: expected gzip, got \"\(other.prefix(40))\""))
        }
        do {
            return try validator.validate(json)
        } catch {
            throw Refusal(Self.error(400, error.description))
        }
    }

    static func accepted(_ status: Int, _ batch: IngestBatch, _ outcome: IngestDatabase.Outcome?) -> OutgoingReply {
        var json = JSONWriter()
        json.beginObject()
        json.key("batch_id")
        json.string(batch.batchID)
        if let outcome {
            json.key("duplicate_batch")
            json.bool(!outcome.newBatch)
            json.key("stored_locations")
            json.integer(Int64(outcome.storedLocationTimestamps.count))
            json.key("duplicate_locations")
            json.integer(Int64(outcome.duplicateLocations))
            json.key("stored_geofence_events")
            json.integer(Int64(outcome.storedGeofenceEvents))
            json.key("duplicate_geofence_events")
            json.integer(Int64(outcome.duplicateGeofenceEvents))
        }
        json.endObject()
        return .json(status, json.bytes)
    }

    // MARK: Token endpoint

    private func token(_ request: IncomingRequest) -> OutgoingReply {
        if request.bodyTooLarge { return Self.error(413, "body: too large") }
        guard let fields = TokenIssuer.fields(body: request.body, contentType: request.head.headerFields[.contentType])
        else {
            return Self.error(400, "body: expected application/x-www-form-urlencoded or a JSON object")
        }
        let refreshToken = fields["refresh_token"] ?? fields["refreshToken"]
        let now = Self.wallMillis()
        let expiresIn = configuration.tokenEndpoint.expiresIn
        return state.withLock { state -> OutgoingReply in
            switch state.planner.planToken() {
            case .fail(let status):
                return Self.error(status, "scripted token answer \(status)")
            case .omitToken:
                return .json(200, Array(#"{"token_type":"Bearer"}"#.utf8))
            case .issue:
                guard let refreshToken, state.tokens.accepts(refreshToken: refreshToken) else {
                    return Self.error(
                        400,
                        refreshToken == nil ? "refresh_token: missing" : "refresh_token: not one this receiver accepts")
                }
                let issued = state.tokens.issue(expiresIn: expiresIn, now: now)
                state.recorder.stats.tokensIssued += 1
                var json = JSONWriter()
                json.beginObject()
                json.key("access_token")
                json.string(issued.accessToken)
                json.key("refresh_token")
                json.string(issued.refreshToken)
                json.key("expires_in")
                json.integer(Int64(issued.expiresIn))
                json.key("token_type")
                json.string("Bearer")
                json.endObject()
                return .json(200, json.bytes, headerFields: [.cacheControl: "no-store"])
            }
        }
    }
}
