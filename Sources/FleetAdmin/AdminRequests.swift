import BeekonDevice
import FleetDescription
import FleetEngine
import Yams

/// The admin API's request bodies, read into fleet control values; every refusal names the
/// field.
enum AdminRequests {
    /// `PATCH /api/v1/fleet`.
    static func clock(_ body: [UInt8]) throws(APIError) -> (warp: Warp?, paused: Bool?) {
        var object = try BodyObject(body: body)
        let warp = try object.warp("warp")
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
                parsed = try DeviceGroup.read(spec.node)
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
    /// range refuses, or a missing parameter, names its field (`spec.count`, `params.ms`).
    static func problem(_ problems: FleetFileProblems, prefix: String) -> APIError {
        func path(_ field: String) -> String { field.hasPrefix(prefix + ".") ? field : "\(prefix).\(field)" }
        if let unknown = problems.problems.first(where: { $0.unknownField != nil }), let field = unknown.unknownField {
            return APIError(
                status: 400, code: .unknownField, message: "unknown field `\(path(field))`; \(unknown.expected)",
                field: path(field))
        }
        if let named = problems.problems.first(where: { $0.field != nil }), let field = named.field {
            return .badRequest("\(prefix): \(named.problem); expected \(named.expected)", field: path(field))
        }
        let text = problems.problems.map { $0.expected.isEmpty ? $0.problem : "\($0.problem); expected \($0.expected)" }
        return .badRequest("\(prefix): " + text.joined(separator: "; "), field: prefix)
    }

    /// `{"action", "params"?}` (and `selector` for the fleet): the action with its parameters,
    /// each of the JSON type its description gives, then read as a fleet file's timeline reads it.
    static func action(_ object: inout BodyObject) throws(APIError) -> FleetAction {
        guard let text = try object.string("action") else {
            throw .badRequest("`action` is required", field: "action")
        }
        guard let name = FleetAction.Name(rawValue: text) else {
            throw .badRequest("unknown action \"\(text)\"; expected \(FleetAction.Name.oneOf)", field: "action")
        }
        let parameters = name.details.parameters
        var given: [(key: String, value: JSONValue)] = []
        if let paramsValue = object.value("params"), paramsValue != .null {
            guard case .object(let members) = paramsValue else {
                throw .badType("params", expected: "an object", got: paramsValue)
            }
            for (key, value) in members where value != .null {
                guard let parameter = parameters.first(where: { $0.name == key }) else {
                    throw .unknownField("params.\(key)", allowed: parameters.map(\.name))
                }
                try check(value, is: parameter, field: "params.\(key)")
                given.append((key, value))
            }
        }
        do throws(FleetFileProblems) {
            return try FleetAction.read(name, params: given.isEmpty ? nil : JSONValue.object(given).node)
        } catch {
            throw problem(error, prefix: "params")
        }
    }

    /// Refuses a parameter's value of the wrong JSON type (its range is the reader's to check).
    private static func check(_ value: JSONValue, is parameter: ActionParameter, field: String) throws(APIError) {
        switch (parameter.jsonType, value) {
        case (.integer, .number), (.number, .number), (.object, .object), (.array, .array): return
        case (.integer, _), (.number, _):
            guard let range = parameter.range else { throw .badType(field, expected: "a number", got: value) }
            throw .badType(field, range: range, got: value)
        case (.object, _): throw .badType(field, expected: "an object", got: value)
        case (.array, _): throw .badType(field, expected: "an array", got: value)
        }
    }

    /// `POST /api/v1/devices/{id}/actions`.
    static func deviceAction(_ body: [UInt8]) throws(APIError) -> FleetAction {
        var object = try BodyObject(body: body)
        let parsed = try action(&object)
        try object.finish()
        return parsed
    }

    /// `POST /api/v1/fleet/actions`.
    static func fleetAction(_ body: [UInt8]) throws(APIError) -> (FleetAction, FaultSelector) {
        var object = try BodyObject(body: body)
        let parsed = try action(&object)
        guard var selectorObject = try object.object("selector") else {
            throw .badRequest(
                "`selector` is required: {\"all\": true}, {\"group\"}, "
                    + "{\"fraction\", \"seed\"?}, {\"ids\"} or {\"state\"}",
                field: "selector")
        }
        try object.finish()
        let selector = try selector(&selectorObject)
        return (parsed, selector)
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
