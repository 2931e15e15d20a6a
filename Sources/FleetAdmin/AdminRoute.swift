import FleetEngine
import MicroHTTP

/// One operation of the admin server: the methods it answers, its path as docs/openapi.yaml
/// writes it, its operationId there, and its handler. `AdminRouter.routes` is the one table of
/// them the router dispatches from; a test holds that table and the document to the same set.
struct AdminRoute: Sendable {
    /// The methods it answers; HEAD is listed where it is answered as GET (without the body).
    let methods: [String]
    /// The path template: `{id}` is a device's id, `{file}` a page file's name.
    let path: String
    /// The operation's `operationId` in docs/openapi.yaml.
    let operationID: String
    /// Whether `?token=` may carry the admin token: EventSource cannot send headers.
    let queryToken: Bool
    /// The router's method that answers it.
    let handle: @Sendable (AdminRouter) -> (Call) throws(APIError) -> Disposition
    let segments: [Segment]

    init(
        _ methods: [String], _ path: String, _ operationID: String, queryToken: Bool = false,
        _ handle: @escaping @Sendable (AdminRouter) -> (Call) throws(APIError) -> Disposition
    ) {
        self.methods = methods
        self.path = path
        self.operationID = operationID
        self.queryToken = queryToken
        self.handle = handle
        segments = Self.split(path).map { part in
            part.hasPrefix("{") && part.hasSuffix("}")
                ? .parameter(String(part.dropFirst().dropLast())) : .literal(part)
        }
    }

    /// One `/`-separated part of a path template.
    enum Segment: Equatable {
        case literal(String)
        /// Takes any one part, an empty one too.
        case parameter(String)
    }

    /// A request as its route's handler gets it.
    struct Call {
        let request: IncomingRequest
        /// The device `{id}` names, looked up before the method is; nil on a path without `{id}`.
        let resolved: DeviceSnapshot?
        /// The path's parameters by name (`fault`), as written.
        var parameters: [String: String] = [:]

        /// The device the path names (routes with `{id}` only).
        var device: DeviceSnapshot {
            guard let resolved else { preconditionFailure("\(request.path) names no device") }
            return resolved
        }
    }

    /// Which checks a request passes before its route, by where its path is.
    enum Area: Equatable {
        /// `/healthz`: no Host check and no token, as a container or Kubernetes probe needs.
        case probe
        /// `/api`, `/api/…` and `/metrics`: the Host check, the token, the body limit.
        case api
        /// Everything else is the page: the Host check only.
        case page

        init(path: String) {
            if path == "/healthz" {
                self = .probe
            } else if path == "/api" || path.hasPrefix("/api/") || path == "/metrics" {
                self = .api
            } else {
                self = .page
            }
        }
    }

    var area: Area { Area(path: path) }

    /// `/a/b` as `["a", "b"]`, `/` as `[""]`.
    static func split(_ path: String) -> [String] {
        path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
    }

    /// The values of the template's parameters in `parts`; nil when the path is not this template's.
    func parameters(_ parts: [String]) -> [String: String]? {
        guard parts.count == segments.count else { return nil }
        var values: [String: String] = [:]
        for (segment, part) in zip(segments, parts) {
            switch segment {
            case .literal(let text): if text != part { return nil }
            case .parameter(let name): values[name] = part
            }
        }
        return values
    }

    /// The operations at `path` among `routes` (those of its area), in table order, with the
    /// values of the path's parameters; none when no template matches. A template without
    /// parameters wins over one with (`/` over `/{file}`), as OpenAPI matches paths.
    static func match(_ path: String, in routes: [AdminRoute]) -> (routes: [AdminRoute], parameters: [String: String]) {
        let area = Area(path: path)
        let parts = split(path)
        var best: (path: String, parameters: [String: String])?
        for route in routes where route.area == area {
            guard let values = route.parameters(parts), values.count < best?.parameters.count ?? .max else { continue }
            best = (route.path, values)
        }
        guard let best else { return ([], [:]) }
        return (routes.filter { $0.path == best.path }, best.parameters)
    }
}
