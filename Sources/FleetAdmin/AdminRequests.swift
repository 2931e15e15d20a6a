import BeekonDevice
import FleetDescription
import FleetEngine

/// The admin API's request bodies, read into fleet control values; every refusal names the
/// field.
enum AdminRequests {
    /// `PATCH /api/v1/fleet`.
    static func fleet(_ body: [UInt8]) throws(APIError) -> (warp: Warp?, paused: Bool?, devices: Int?) {
        let patch = try FleetPatchRequest.read(body)
        return (patch.warp?.warp, patch.paused, patch.devices.map { Int($0.value) })
    }

    /// `POST /api/v1/devices`.
    static func spawn(_ body: [UInt8]) throws(APIError) -> SpawnRequest {
        let request = try SpawnDevicesRequest.read(body)
        let count = request.count.map { Int($0.value) }
        let rate = request.ratePerSecond?.value
        switch (request.group, request.spec?.value) {
        case (let name?, nil):
            guard let count else { throw .badRequest("`count` is required with `group`", field: "count") }
            return SpawnRequest(template: .group(name), count: count, ratePerSecond: rate)
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
                status: 400, code: .unknownField,
                message: "unknown field `\(path(field))`"
                    + NameSuggestion.hint(unknown.suggestion) + "; \(unknown.expected)",
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
    static func action(_ text: String?, params paramsValue: JSONValue?) throws(APIError) -> FleetAction {
        guard let text else {
            throw .badRequest("`action` is required", field: "action")
        }
        guard let name = FleetAction.Name(rawValue: text) else {
            let hint = NameSuggestion.hint(for: text, among: FleetAction.Name.allCases.map(\.rawValue))
            throw .badRequest("unknown action \"\(text)\"\(hint); expected \(FleetAction.Name.oneOf)", field: "action")
        }
        let parameters = name.details.parameters
        var given: [(key: String, value: JSONValue)] = []
        if let paramsValue, paramsValue != .null {
            guard case .object(let members) = paramsValue else {
                throw .badType("params", expected: "an object", got: paramsValue)
            }
            for (key, value) in members {
                guard let parameter = parameters.first(where: { $0.name == key }) else {
                    throw .unknownField("params.\(key)", allowed: parameters.map(\.name))
                }
                // A known parameter given null takes its default, as when it is left out.
                guard value != .null else { continue }
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
        case (.integer, .number), (.number, .number), (.string, .string), (.object, .object), (.array, .array): return
        case (.integer, _), (.number, _):
            guard let range = parameter.range else { throw .badType(field, expected: "a number", got: value) }
            throw .badType(field, range: range, got: value)
        case (.string, _):
            let words = parameter.choices.map { "one of " + $0.joined(separator: ", ") } ?? "a string"
            throw .badType(field, expected: words, got: value)
        case (.object, _): throw .badType(field, expected: "an object", got: value)
        case (.array, _): throw .badType(field, expected: "an array", got: value)
        }
    }

    /// `POST /api/v1/devices/{id}/actions`.
    static func deviceAction(_ body: [UInt8]) throws(APIError) -> FleetAction {
        let request = try DeviceActionBody.read(body)
        return try action(request.action, params: request.params?.value)
    }

    /// `POST /api/v1/fleet/actions`.
    static func fleetAction(_ body: [UInt8]) throws(APIError) -> (FleetAction, FaultSelector) {
        let request = try FleetActionBody.read(body)
        let parsed = try action(request.action, params: request.params?.value)
        guard let selector = request.selector?.value else {
            throw .badRequest(
                "`selector` is required: {\"all\": true}, {\"group\"}, "
                    + "{\"fraction\", \"seed\"?}, {\"ids\"} or {\"state\"}",
                field: "selector")
        }
        return (parsed, try BodyDecoder.object(SelectorRequest.self, from: selector, path: "selector.").selector())
    }
}
