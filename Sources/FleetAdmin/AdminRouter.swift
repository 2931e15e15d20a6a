import BeekonDevice
import FleetKit
import Foundation
import MicroHTTP

/// Routes one request to its handler: the Host, Origin and Content-Type checks first, then
/// auth, then the body limit, then the endpoint.
/// Runs on the daemon's threads; reads the snapshot, and hands commands to the runtime with
/// the connection suspended until the loop answers.
final class AdminRouter: Sendable {
    let runtime: any FleetControl
    let token: String?
    let files: WebFiles
    let publisher: EventPublisher
    let requestGuard: RequestGuard

    /// How long a request waits for the loop before it is answered 409.
    static let commandTimeoutMillis = 10_000

    init(
        runtime: any FleetControl, token: String?, files: WebFiles, publisher: EventPublisher,
        guard requestGuard: RequestGuard
    ) {
        self.runtime = runtime
        self.token = token
        self.files = files
        self.publisher = publisher
        self.requestGuard = requestGuard
    }

    func respond(to request: IncomingRequest) -> Disposition {
        do throws(APIError) {
            // Before the Host check: a Kubernetes probe sends the pod's address as Host, and the
            // answer tells a rebinding page nothing but whether the fleet runs.
            if request.path == "/healthz" { return try health(request) }
            try requestGuard.check(request)
            return try route(request)
        } catch {
            return .reply(error.reply, delayMillis: 0)
        }
    }

    private static let apiPrefix = "/api/v1/"

    private func route(_ request: IncomingRequest) throws(APIError) -> Disposition {
        let path = request.path
        let isAPI = path.hasPrefix("/api/") || path == "/api"
        guard isAPI || path == "/metrics" else { return try page(request) }
        try authorize(request, queryToken: path == "/api/v1/events")
        if request.bodyTooLarge { throw .tooLarge }
        if path == "/metrics" {
            try only(["GET", "HEAD"], request)
            return ok(
                OutgoingReply(
                    status: 200, headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8")],
                    body: PrometheusText.body(runtime.snapshot)))
        }
        guard path.hasPrefix(Self.apiPrefix) else { throw .notFound("no such path: \(path.prefix(200))") }
        let parts = path.dropFirst(Self.apiPrefix.count).split(separator: "/", omittingEmptySubsequences: false).map(
            String.init)
        switch (parts.first ?? "", parts.count) {
        case ("fleet", 1):
            if request.method == "PATCH" { return try patchFleet(request) }
            try only(["GET", "HEAD", "PATCH"], request)
            return json(200, AdminJSON.fleet(runtime.snapshot))
        case ("fleet", 2) where parts[1] == "actions":
            try only(["POST"], request)
            let (action, selector) = try AdminRequests.fleetAction(request.body)
            return command(status: 202) { reply in
                self.runtime.apply(action, to: selector) { result in
                    reply(result.map { AdminJSON.ids($0, applied: true) })
                }
            }
        case ("actions", 1):
            try only(["GET", "HEAD"], request)
            return json(200, ActionCatalogJSON.document)
        case ("devices", 1):
            if request.method == "POST" {
                let spawn = try AdminRequests.spawn(request.body)
                return command(status: 202) { reply in
                    self.runtime.spawn(spawn) { result in reply(result.map { AdminJSON.ids($0, applied: false) }) }
                }
            }
            try only(["GET", "HEAD", "POST"], request)
            let query = try DeviceQuery(request.query)
            let page = query.page(of: runtime.snapshot)
            return json(200, AdminJSON.deviceList(page.devices, total: page.total, next: page.next))
        case ("devices", 2...3):
            return try device(request, id: parts[1], rest: parts.count == 3 ? parts[2] : nil)
        case ("stats", 1):
            try only(["GET", "HEAD"], request)
            return json(200, AdminJSON.stats(runtime.snapshot))
        case ("events", 1):
            try only(["GET"], request)
            let stream = EventStream()
            publisher.add(stream)
            return .stream(
                headers: [
                    ("Content-Type", "text/event-stream"), ("Cache-Control", "no-store"), ("X-Accel-Buffering", "no"),
                ],
                stream)
        case ("openapi.yaml", 1):
            try only(["GET", "HEAD"], request)
            guard let reply = files.openAPI() else {
                throw .notFound("docs/openapi.yaml was not found next to the server")
            }
            return ok(reply)
        default:
            throw .notFound("no such path: \(path.prefix(200))")
        }
    }

    private func device(_ request: IncomingRequest, id: String, rest: String?) throws(APIError) -> Disposition {
        guard let device = runtime.snapshot.device(id) else {
            throw .notFound("no device is named \"\(id.prefix(200))\"", field: "id")
        }
        switch rest {
        case nil:
            if request.method == "DELETE" {
                return command(status: 204) { reply in
                    self.runtime.deleteDevice(id) { result in reply(result.map { [] }) }
                }
            }
            try only(["GET", "HEAD", "DELETE"], request)
            return json(200, AdminJSON.deviceDetail(device))
        case "uploads":
            try only(["GET", "HEAD"], request)
            return json(200, AdminJSON.uploads(device))
        case "locations":
            try only(["GET", "HEAD"], request)
            let from = try Self.instant(request.query["from"], field: "from") ?? Int64.min
            let to = try Self.instant(request.query["to"], field: "to") ?? Int64.max
            let most = Int(try DeviceQuery.integer(request.query, "limit", Self.locationsLimitRange) ?? 500)
            return command(status: 200) { reply in
                self.runtime.locations(of: id, from: from, to: to, limit: most) { result in
                    reply(result.map(AdminJSON.locations))
                }
            }
        case "actions":
            try only(["POST"], request)
            let action = try AdminRequests.deviceAction(request.body)
            return command(status: 202) { reply in
                self.runtime.apply(action, to: .ids([id])) { result in
                    reply(
                        result.map { AdminJSON.ids($0, applied: true) }
                            .mapError {
                                $0.kind == .badRequest
                                    ? FleetControlError(.notFound, "no device is named \"\(id)\"", field: "id") : $0
                            })
                }
            }
        default:
            throw .notFound("no such path: \(request.path.prefix(200))")
        }
    }

    /// `GET /healthz`: 200 while the fleet's loop runs, 503 before it starts and once it stops;
    /// no token and any Host, and nothing in it but the phase, so a container or Kubernetes probe
    /// needs no secret and no allowed name.
    private func health(_ request: IncomingRequest) throws(APIError) -> Disposition {
        try only(["GET", "HEAD"], request)
        let phase = runtime.phase
        var json = JSONWriter(capacity: 32)
        json.beginObject()
        json.key("status")
        json.string(phase.rawValue)
        json.endObject()
        return self.json(phase == .running ? 200 : 503, json.bytes)
    }

    private func patchFleet(_ request: IncomingRequest) throws(APIError) -> Disposition {
        let (warp, paused) = try AdminRequests.clock(request.body)
        return command(status: 200) { reply in
            self.runtime.setClock(warp: warp, paused: paused) { result in
                reply(result.map { AdminJSON.fleet(self.runtime.snapshot) })
            }
        }
    }

    /// `limit` of a device's locations.
    static let locationsLimitRange = NumberRange.integer(1...5000, unit: "fixes")

    /// `from`/`to`: ISO 8601 UTC or Unix ms, from 1970 to 9999 (`Timestamp.inputRange`).
    static func instant(_ text: String?, field: String) throws(APIError) -> Int64? {
        guard let text, !text.isEmpty else { return nil }
        let shown = String(text.prefix(40))
        let expected = "an ISO 8601 UTC time or Unix milliseconds from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z"
        var millis = Timestamp.unixMillis(parsing: text).map(Double.init)
        if millis == nil, let date = ISO8601DateFormatter().date(from: text) {
            millis = (date.timeIntervalSince1970 * 1000).rounded()
        }
        if let millis {
            guard Timestamp.inputRange.contains(millis) else {
                throw .badNumber(field, NumberProblem(value: shown, reason: .outOfRange, expected: expected))
            }
            return Int64(millis)
        }
        do throws(NumberProblem) {
            return try Timestamp.inputRange.readInteger(text)
        } catch {
            throw .badNumber(field, NumberProblem(value: shown, reason: error.reason, expected: expected))
        }
    }

    /// Suspends the connection until the loop answers (or 10 s pass).
    private func command(
        status: Int,
        _ start: @escaping @Sendable (@escaping @Sendable (Result<[UInt8], FleetControlError>) -> Void) -> Void
    ) -> Disposition {
        .later(
            timeoutMillis: Self.commandTimeoutMillis,
            timeoutReply: APIError(status: 409, code: "conflict", message: "the fleet did not answer within 10 s")
                .reply,
            start: { pending in
                start { result in
                    switch result {
                    case .success(let body):
                        pending.send(
                            status == 204
                                ? OutgoingReply(status: 204, headers: [("Cache-Control", "no-store")])
                                : .json(status, body, headers: [("Cache-Control", "no-store")]))
                    case .failure(let error):
                        pending.send(APIError(error).reply)
                    }
                }
            })
    }

    private func authorize(_ request: IncomingRequest, queryToken: Bool) throws(APIError) {
        guard let token else { return }
        var given: String?
        if let header = request.headers["authorization"], header.lowercased().hasPrefix("bearer ") {
            given = String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        } else if queryToken {
            given = request.query["token"]
        }
        guard let given, Self.same(given, token) else { throw .unauthorized }
    }

    /// Compares in constant time: every byte of `given` is looked at whatever differs, so the
    /// time depends on the given length only, never on how much of the token it got right.
    static func same(_ given: String, _ token: String) -> Bool {
        let a = Array(given.utf8)
        let b = Array(token.utf8)
        guard !b.isEmpty else { return a.isEmpty }
        var difference = UInt(bitPattern: a.count ^ b.count)
        for index in a.indices { difference |= UInt(a[index] ^ b[index % b.count]) }
        return difference == 0
    }

    private func only(_ methods: [String], _ request: IncomingRequest) throws(APIError) {
        guard methods.contains(request.method) else { throw .notAllowed(methods.filter { $0 != "HEAD" }) }
    }

    private func json(_ status: Int, _ body: [UInt8]) -> Disposition {
        .reply(.json(status, body, headers: [("Cache-Control", "no-store")]), delayMillis: 0)
    }

    private func ok(_ reply: OutgoingReply) -> Disposition {
        .reply(reply, delayMillis: 0)
    }

    /// The page: static files from `web/`, no token needed.
    private func page(_ request: IncomingRequest) throws(APIError) -> Disposition {
        try only(["GET", "HEAD"], request)
        guard let reply = files.page(request.path) else { throw .notFound("no such file: \(request.path.prefix(200))") }
        return ok(reply)
    }
}
