import BeekonDevice
import FleetKit

/// The admin API's request bodies, read into fleet control values; every refusal names the
/// field.
enum AdminRequests {
    /// `PATCH /api/v1/fleet`.
    static func clock(_ body: [UInt8]) throws(APIError) -> (warp: Double?, paused: Bool?) {
        var object = try BodyObject(body: body)
        let warp = try object.number("warp", in: FleetClock.warpRange)
        let paused = try object.bool("paused")
        try object.finish()
        return (warp, paused)
    }

    /// `POST /api/v1/devices`.
    static func spawn(_ body: [UInt8]) throws(APIError) -> SpawnRequest {
        var object = try BodyObject(body: body)
        let group = try object.string("group")
        let count = try object.integer("count", in: SpawnRequest.countRange)
        let rate = try object.number("ratePerSecond", in: SpawnRequest.rateRange)
        let specValue = object.value("spec")
        try object.finish()
        switch (group, specValue) {
        case (let name?, nil):
            guard let count else { throw .badRequest("`count` is required with `group`", field: "count") }
            return SpawnRequest(template: .group(name), count: Int(count), ratePerSecond: rate)
        case (nil, let spec?):
            guard case .object = spec else {
                throw .badType("spec", expected: "an object (one fleet-file group)", got: spec)
            }
            if count != nil { throw .badRequest("with `spec`, the count goes in the spec", field: "count") }
            let parsed: DeviceGroup
            do throws(FleetFileProblems) {
                parsed = try DeviceGroup.parse(yaml: spec.text)
            } catch {
                throw problem(error, prefix: "spec")
            }
            do throws(NumberProblem) {
                _ = try SpawnRequest.countRange.check(Double(parsed.count))
            } catch {
                throw .badNumber("spec.count", error)
            }
            return SpawnRequest(template: .spec(parsed), count: parsed.count, ratePerSecond: rate)
        case (nil, nil):
            throw .badRequest("give `group` and `count`, or `spec`")
        case (_?, _?):
            throw .badRequest("give `group` or `spec`, not both", field: "spec")
        }
    }

    /// A fleet-file problem as an API error: an unknown key is `unknown_field`; a number its
    /// range refuses names its field (`spec.count`, `params.ms`).
    static func problem(_ problems: FleetFileProblems, prefix: String) -> APIError {
        if let unknown = problems.problems.first(where: { $0.unknownField != nil }), let field = unknown.unknownField {
            return APIError(
                status: 400, code: "unknown_field", message: "unknown field `\(prefix).\(field)`; \(unknown.expected)",
                field: "\(prefix).\(field)")
        }
        if let number = problems.problems.first(where: { $0.numberField != nil }), let field = number.numberField {
            let path = field.hasPrefix(prefix + ".") ? field : "\(prefix).\(field)"
            return .badRequest("\(prefix): \(number.problem); expected \(number.expected)", field: path)
        }
        let text = problems.problems.map { $0.expected.isEmpty ? $0.problem : "\($0.problem); expected \($0.expected)" }
        return .badRequest("\(prefix): " + text.joined(separator: "; "), field: prefix)
    }

    /// The `params` each action takes (as in the fleet file's timeline, plus `kill`'s relaunch).
    static func paramNames(_ action: FaultAction) -> [String] {
        switch action {
        case .kill, .reboot: ["relaunchAfterSeconds"]
        case .latency: ["ms"]
        case .timeouts: ["fraction"]
        case .configure: ["config"]
        case .setExtras: ["extras"]
        case .addGeofences: ["geofences"]
        case .removeGeofences: ["ids"]
        default: []
        }
    }

    /// `{"action", "params"?}` (and `selector` for the fleet): the action and its parameters.
    static func action(_ object: inout BodyObject) throws(APIError) -> (FaultAction, FaultParams) {
        guard let name = try object.string("action") else {
            throw .badRequest("`action` is required", field: "action")
        }
        guard let action = FaultAction(rawValue: name) else {
            throw .badRequest(
                "unknown action \"\(name)\"; expected one of \(FaultAction.allCases.map(\.rawValue).joined(separator: ", "))",
                field: "action")
        }
        var params = FaultParams()
        let allowed = paramNames(action)
        let paramsValue = object.value("params")
        var relaunch: Double?
        var rest: [(key: String, value: JSONValue)] = []
        if let paramsValue {
            var paramsObject = try BodyObject(paramsValue, field: "params")
            for key in paramsObject.keys where !allowed.contains(key) {
                throw .unknownField("params.\(key)", allowed: allowed)
            }
            if allowed == ["relaunchAfterSeconds"] {
                relaunch = try paramsObject.number("relaunchAfterSeconds", in: FaultParams.relaunchAfterRange)
            } else {
                rest = paramsObject.members
            }
        }
        if !allowed.isEmpty, allowed != ["relaunchAfterSeconds"] {
            // Each of these needs its one parameter; its type is checked here, its value by the
            // fleet file's reader.
            let key = allowed[0]
            guard let value = rest.last(where: { $0.key == key })?.value, value != .null else {
                throw .badRequest("`\(name)` needs `params.\(key)`", field: "params.\(key)")
            }
            switch (key, value) {
            case ("ms", .number), ("fraction", .number), ("config", .object), ("extras", .object),
                ("geofences", .array), ("ids", .array):
                break
            case ("ms", _): throw .badType("params.ms", range: FaultParams.latencyRange, got: value)
            case ("fraction", _): throw .badType("params.fraction", range: FaultParams.timeoutFractionRange, got: value)
            case ("config", _), ("extras", _): throw .badType("params.\(key)", expected: "an object", got: value)
            default: throw .badType("params.\(key)", expected: "an array", got: value)
            }
            do throws(FleetFileProblems) {
                params = try FaultParams.parse(action: action, yaml: JSONValue.object(rest).text)
            } catch {
                throw problem(error, prefix: "params")
            }
        }
        params.relaunchAfterMillis = relaunch.map { Int64(($0 * 1000).rounded()) }
        return (action, params)
    }

    /// `POST /api/v1/devices/{id}/actions`.
    static func deviceAction(_ body: [UInt8]) throws(APIError) -> (FaultAction, FaultParams) {
        var object = try BodyObject(body: body)
        let parsed = try action(&object)
        try object.finish()
        return parsed
    }

    /// `POST /api/v1/fleet/actions`.
    static func fleetAction(_ body: [UInt8]) throws(APIError) -> (FaultAction, FaultParams, FaultSelector) {
        var object = try BodyObject(body: body)
        let parsed = try action(&object)
        guard var selectorObject = try object.object("selector") else {
            throw .badRequest(
                "`selector` is required: {\"all\": true}, {\"group\"}, {\"fraction\", \"seed\"?}, {\"ids\"} or {\"state\"}",
                field: "selector")
        }
        try object.finish()
        let selector = try selector(&selectorObject)
        return (parsed.0, parsed.1, selector)
    }

    /// SELECTOR: exactly one of `all`, `group`, `fraction` (+ `seed`), `ids`, `state`.
    static func selector(_ object: inout BodyObject) throws(APIError) -> FaultSelector {
        let all = try object.bool("all")
        let group = try object.string("group")
        let fraction = try object.number("fraction", in: FaultSelector.fractionRange)
        let seed = try object.integer("seed", in: FleetFile.seedRange).map { UInt64($0) }
        let ids = try object.strings("ids")
        let state = try object.string("state")
        try object.finish()
        let given = [all != nil, group != nil, fraction != nil, ids != nil, state != nil].filter { $0 }.count
        guard given == 1 else {
            throw .badRequest(
                "a selector takes exactly one of all, group, fraction, ids, state (got \(given))", field: "selector")
        }
        if seed != nil, fraction == nil {
            throw .badRequest("`seed` goes with `fraction` only", field: "selector.seed")
        }
        if let all {
            guard all else { throw .badRequest("`all` must be true", field: "selector.all") }
            return .all
        }
        if let group { return .group(group) }
        if let fraction { return .fraction(fraction, seed: seed) }
        if let ids {
            guard !ids.isEmpty else { throw .badRequest("`ids` is empty", field: "selector.ids") }
            return .ids(ids)
        }
        guard let state, !state.isEmpty else { throw .badRequest("`state` is empty", field: "selector.state") }
        return .state(state)
    }
}
