import BeekonDevice
import FleetEngine
import FleetReport
import HTTPTypes
import MicroHTTP

/// Routes one request to its handler: the Host, Origin and Content-Type checks first, then
/// auth, then the body limit, then the endpoint its path and method pick from `routes`.
/// Runs on the daemon's threads; reads the snapshot, and hands commands to the runtime with
/// the connection suspended until the loop answers.
final class AdminRouter: Sendable {
    let runtime: any FleetControl
    let token: String?
    let files: WebFiles
    let publisher: EventPublisher
    let requestGuard: RequestGuard

    /// How long a request waits for the loop before it is answered 409: 8 s, so the answer comes
    /// within a client's usual 10 s timeout (Schemathesis's) even on a busy machine. With modelled
    /// timing a command waits for every device to stand at one instant, which a device waiting on
    /// a slow server's answer (or a loop far behind its warp) can delay past it; the 409 says so,
    /// and the command still runs when they get there.
    static let commandTimeoutMillis = 8_000
    /// This router's: `commandTimeoutMillis` unless its configuration says otherwise.
    let commandTimeoutMillis: Int

    init(
        runtime: any FleetControl, token: String?, files: WebFiles, publisher: EventPublisher,
        guard requestGuard: RequestGuard, commandTimeoutMillis: Int = AdminRouter.commandTimeoutMillis
    ) {
        self.commandTimeoutMillis = commandTimeoutMillis
        self.runtime = runtime
        self.token = token
        self.files = files
        self.publisher = publisher
        self.requestGuard = requestGuard
    }

    /// Every operation the admin answers, the one table the router dispatches from; the same set
    /// as docs/openapi.yaml's operations (a test holds them to it). Allow lists a path's methods
    /// in this order.
    static let routes: [AdminRoute] = [
        AdminRoute(["GET", "HEAD"], "/healthz", "health", AdminRouter.health),
        AdminRoute(["GET", "HEAD"], "/metrics", "metrics", AdminRouter.metrics),
        AdminRoute(["GET", "HEAD"], "/api/v1/fleet", "getFleet", AdminRouter.fleet),
        AdminRoute(["PATCH"], "/api/v1/fleet", "patchFleet", AdminRouter.patchFleet),
        AdminRoute(["POST"], "/api/v1/fleet/actions", "fleetAction", AdminRouter.fleetAction),
        AdminRoute(["GET", "HEAD"], "/api/v1/actions", "listActions", AdminRouter.actions),
        AdminRoute(["GET", "HEAD"], "/api/v1/devices", "listDevices", AdminRouter.listDevices),
        AdminRoute(["POST"], "/api/v1/devices", "spawnDevices", AdminRouter.spawn),
        AdminRoute(["GET", "HEAD"], "/api/v1/devices/{id}", "getDevice", AdminRouter.device),
        AdminRoute(["DELETE"], "/api/v1/devices/{id}", "deleteDevice", AdminRouter.deleteDevice),
        AdminRoute(["GET", "HEAD"], "/api/v1/devices/{id}/uploads", "getUploads", AdminRouter.uploads),
        AdminRoute(["GET", "HEAD"], "/api/v1/devices/{id}/locations", "getLocations", AdminRouter.locations),
        AdminRoute(["POST"], "/api/v1/devices/{id}/actions", "deviceAction", AdminRouter.deviceAction),
        AdminRoute(["GET", "HEAD"], "/api/v1/stats", "getStats", AdminRouter.stats),
        AdminRoute(["DELETE"], "/api/v1/stats", "resetStats", AdminRouter.resetStats),
        AdminRoute(["GET", "HEAD"], "/api/v1/report", "getReport", AdminRouter.report),
        AdminRoute(["GET", "HEAD"], "/api/v1/faults", "listFaults", AdminRouter.faults),
        AdminRoute(["DELETE"], "/api/v1/faults/{fault}", "endFault", AdminRouter.endFault),
        AdminRoute(["GET"], "/api/v1/events", "events", queryToken: true, AdminRouter.events),
        AdminRoute(["GET", "HEAD"], "/api/v1/openapi.yaml", "openapi", AdminRouter.openAPI),
        AdminRoute(["GET", "HEAD"], "/", "page", AdminRouter.page),
        AdminRoute(["GET", "HEAD"], "/{file}", "pageFile", AdminRouter.page),
        AdminRoute(["GET", "HEAD"], "/vendor/leaflet/{file}", "leafletFile", AdminRouter.page),
        AdminRoute(["GET", "HEAD"], "/vendor/leaflet/images/{file}", "leafletImage", AdminRouter.page),
    ]

    func respond(to request: IncomingRequest) -> Disposition {
        do throws(APIError) {
            return try route(request)
        } catch {
            return .reply(error.reply, delayMillis: 0)
        }
    }

    /// The checks of the path's area, then its route: a path naming no device is 404 whatever
    /// the method, then a method the path does not answer is 405.
    private func route(_ request: IncomingRequest) throws(APIError) -> Disposition {
        let area = AdminRoute.Area(path: request.path)
        // /healthz before the Host check: a Kubernetes probe sends the pod's address as Host, and
        // the answer tells a rebinding page nothing but whether the fleet runs.
        if area != .probe { try requestGuard.check(request) }
        var (routes, parameters) = AdminRoute.match(request.path, in: Self.routes)
        if routes.isEmpty, area == .page {
            // A name with `/` in it is no `/{file}` (OpenAPI's path parameters hold no `/`), yet
            // still the page's: a file in a subfolder of `--web`, or 404 as any missing file is.
            routes = Self.routes.filter { $0.operationID == "pageFile" }
        }
        if area == .api {
            try authorize(request, queryToken: routes.contains(where: \.queryToken))
            if request.bodyTooLarge { throw .tooLarge }
        }
        guard !routes.isEmpty else { throw .notFound("no such path: \(request.path.prefix(200))") }
        var device: DeviceSnapshot?
        if let id = parameters["id"] {
            guard let found = runtime.snapshot.device(id) else {
                throw .notFound("no device is named \"\(id.prefix(200))\"", field: "id")
            }
            device = found
        }
        guard let route = routes.first(where: { $0.methods.contains(request.method) }) else {
            throw .notAllowed(routes.flatMap(\.methods).filter { $0 != "HEAD" })
        }
        return try route.handle(self)(AdminRoute.Call(request: request, resolved: device, parameters: parameters))
    }

    private func metrics(_ call: AdminRoute.Call) -> Disposition {
        ok(
            OutgoingReply(
                status: 200, headerFields: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: PrometheusText.body(runtime.snapshot, shard: runtime.shard)))
    }

    private func fleet(_ call: AdminRoute.Call) -> Disposition {
        json(200, FleetSummaryBody(runtime.snapshot))
    }

    private func fleetAction(_ call: AdminRoute.Call) throws(APIError) -> Disposition {
        let (action, selector) = try AdminRequests.fleetAction(call.request.body)
        return command(status: 202) { reply in
            self.runtime.apply(action, to: selector) { result in
                reply(result.map { APIJSON.bytes(AppliedBody($0)) })
            }
        }
    }

    private func actions(_ call: AdminRoute.Call) -> Disposition {
        json(200, ActionCatalogBody.document)
    }

    private func listDevices(_ call: AdminRoute.Call) throws(APIError) -> Disposition {
        let query = try DeviceQuery(call.request.query)
        let page = query.page(of: runtime.snapshot)
        return json(
            200, DeviceListBody(devices: page.devices.map(DeviceSummaryBody.init), total: page.total, next: page.next))
    }

    private func spawn(_ call: AdminRoute.Call) throws(APIError) -> Disposition {
        let spawn = try AdminRequests.spawn(call.request.body)
        return command(status: 202) { reply in
            self.runtime.spawn(spawn) { result in reply(result.map { APIJSON.bytes(SpawnedBody(ids: $0)) }) }
        }
    }

    private func device(_ call: AdminRoute.Call) -> Disposition {
        json(200, DeviceDetailBody(call.device))
    }

    private func deleteDevice(_ call: AdminRoute.Call) -> Disposition {
        let id = call.device.id
        return command(status: 204) { reply in
            self.runtime.deleteDevice(id) { result in reply(result.map { [] }) }
        }
    }

    private func uploads(_ call: AdminRoute.Call) -> Disposition {
        json(200, UploadsBody(uploads: call.device.uploads.reversed().map(UploadRecordBody.init)))
    }

    private func locations(_ call: AdminRoute.Call) throws(APIError) -> Disposition {
        let query = call.request.query
        let id = call.device.id
        let from = try Self.instant(query["from"], field: "from") ?? Int64.min
        let to = try Self.instant(query["to"], field: "to") ?? Int64.max
        let most = Int(try DeviceQuery.integer(query, "limit", Self.locationsLimitRange) ?? 500)
        return command(status: 200) { reply in
            self.runtime.locations(of: id, from: from, to: to, limit: most) { result in
                reply(result.map { APIJSON.bytes(LocationsBody(locations: $0.map(StoredLocationBody.init))) })
            }
        }
    }

    private func deviceAction(_ call: AdminRoute.Call) throws(APIError) -> Disposition {
        let id = call.device.id
        let action = try AdminRequests.deviceAction(call.request.body)
        return command(status: 202) { reply in
            self.runtime.apply(action, to: .ids([id])) { result in
                reply(
                    result.map { APIJSON.bytes(AppliedBody($0)) }
                        .mapError {
                            $0.kind == .notFound
                                ? FleetControlError(.notFound, "no device is named \"\(id)\"", field: "id") : $0
                        })
            }
        }
    }

    private func stats(_ call: AdminRoute.Call) -> Disposition {
        json(200, StatsBody(runtime.snapshot))
    }

    /// `GET /api/v1/faults`: the fleet file's fault timeline and the API's faults as the run stands.
    private func faults(_ call: AdminRoute.Call) -> Disposition {
        json(200, FaultsBody(runtime.snapshot))
    }

    /// `{fault}`: a fault's number: a place in the fleet file's `faults:`, from 0, or after them
    /// for one the API began (numbered by the admin action that began it).
    static let faultIndexRange = NumberRange.integer(0...2_000_000_000, unit: "")

    /// `DELETE /api/v1/faults/{fault}`: ends an active fault now, the timeline's or the API's, as
    /// a `for` would; answers the faults then.
    private func endFault(_ call: AdminRoute.Call) throws(APIError) -> Disposition {
        let text = call.parameters["fault"] ?? ""
        let index: Int
        do throws(NumberProblem) {
            index = Int(try Self.faultIndexRange.readInteger(text))
        } catch {
            throw .badNumber("fault", error)
        }
        return command(status: 200) { reply in
            self.runtime.endFault(index) { result in
                reply(result.map { APIJSON.bytes(FaultsBody(self.runtime.snapshot)) })
            }
        }
    }

    /// `GET /api/v1/report`: the run's report as `run --report` writes it at the end, live.
    private func report(_ call: AdminRoute.Call) -> Disposition {
        json(200, RunReportBody(runtime.snapshot, shard: runtime.shard))
    }

    /// `DELETE /api/v1/stats`: the statistics start over; answers them as they are then.
    private func resetStats(_ call: AdminRoute.Call) -> Disposition {
        command(status: 200) { reply in
            self.runtime.resetStatistics { result in
                reply(result.map { APIJSON.bytes(StatsBody(self.runtime.snapshot)) })
            }
        }
    }

    private func events(_ call: AdminRoute.Call) -> Disposition {
        let stream = EventStream()
        publisher.add(stream)
        return .stream(
            headerFields: [.contentType: "text/event-stream", .cacheControl: "no-store", .accelBuffering: "no"], stream)
    }

    private func openAPI(_ call: AdminRoute.Call) throws(APIError) -> Disposition {
        guard let reply = files.openAPI() else {
            throw .notFound("docs/openapi.yaml was not found next to the server")
        }
        return ok(reply)
    }

    /// `GET /healthz`: 200 while the fleet's loop runs, 503 before it starts and once it stops;
    /// no token and any Host, and nothing in it but the phase, so a container or Kubernetes probe
    /// needs no secret and no allowed name.
    private func health(_ call: AdminRoute.Call) -> Disposition {
        let phase = runtime.phase
        return json(phase == .running ? 200 : 503, HealthBody(status: phase))
    }

    private func patchFleet(_ call: AdminRoute.Call) throws(APIError) -> Disposition {
        let patch = try AdminRequests.fleet(call.request.body)
        return command(status: 200) { reply in
            self.runtime.updateFleet(warp: patch.warp, paused: patch.paused, devices: patch.devices) { result in
                reply(result.map { APIJSON.bytes(FleetSummaryBody(self.runtime.snapshot)) })
            }
        }
    }

    /// `limit` of a device's locations.
    static let locationsLimitRange = NumberRange.integer(1...5000, unit: "fixes")

    /// `from`/`to`: an RFC 3339 date-time (any year 0000 to 9999, any offset: a bound needs no
    /// more), or Unix ms from 1970 to 9999 (`Timestamp.inputRange`).
    static func instant(_ text: String?, field: String) throws(APIError) -> Int64? {
        guard let text, !text.isEmpty else { return nil }
        let shown = String(text.prefix(40))
        let expected = "an RFC 3339 date-time, or Unix milliseconds from 0 to \(Int64(Timestamp.inputRange.upper))"
        if let millis = Timestamp.unixMillis(parsingISO8601: text) { return millis }
        do throws(NumberProblem) {
            return try Timestamp.inputRange.readInteger(text)
        } catch {
            throw .badNumber(field, NumberProblem(value: shown, reason: error.reason, expected: expected))
        }
    }

    /// Suspends the connection until the loop answers (or `commandTimeoutMillis` pass).
    private func command(
        status: Int,
        _ start: @escaping @Sendable (@escaping @Sendable (Result<[UInt8], FleetControlError>) -> Void) -> Void
    ) -> Disposition {
        .later(
            timeoutMillis: commandTimeoutMillis,
            timeoutReply: APIError(
                status: 409, code: .conflict,
                message: "the fleet did not answer within \(commandTimeoutMillis / 1000) s"
            )
            .reply,
            start: { pending in
                start { result in
                    switch result {
                    case .success(let body):
                        pending.send(
                            status == 204
                                ? OutgoingReply(status: 204, headerFields: [.cacheControl: "no-store"])
                                : .json(status, body, headerFields: [.cacheControl: "no-store"]))
                    case .failure(let error):
                        pending.send(APIError(error).reply)
                    }
                }
            })
    }

    private func authorize(_ request: IncomingRequest, queryToken: Bool) throws(APIError) {
        guard let token else { return }
        var given: String?
        if let header = request.head.headerFields[.authorization], header.lowercased().hasPrefix("bearer ") {
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

    private func json(_ status: Int, _ body: some APIBody) -> Disposition {
        json(status, APIJSON.bytes(body))
    }

    private func json(_ status: Int, _ body: [UInt8]) -> Disposition {
        .reply(.json(status, body, headerFields: [.cacheControl: "no-store"]), delayMillis: 0)
    }

    private func ok(_ reply: OutgoingReply) -> Disposition {
        .reply(reply, delayMillis: 0)
    }

    /// The page: static files from `web/`, no token needed.
    private func page(_ call: AdminRoute.Call) throws(APIError) -> Disposition {
        let path = call.request.path
        guard let reply = files.page(path) else { throw .notFound("no such file: \(path.prefix(200))") }
        return ok(reply)
    }
}
