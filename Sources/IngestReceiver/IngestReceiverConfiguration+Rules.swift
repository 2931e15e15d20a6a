import BeekonDevice
import Foundation

/// The rules file: a JSON object whose fields set the scripted answers, the auth and the token
/// endpoint (see docs/receiver.md for the format). Unknown fields are refused, so a typo is an
/// error rather than a silently ignored rule.
extension IngestReceiverConfiguration {
    /// Applies the rules file at `path` over this configuration.
    public mutating func applyRules(fromFile path: String) throws(IngestReceiverError) {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw IngestReceiverError(.rules, "\(path): cannot read the rules file: \(error.localizedDescription)")
        }
        try applyRules(json: Array(data), file: path)
    }

    /// Applies rules given as JSON bytes; `file` names them in errors.
    public mutating func applyRules(json: [UInt8], file: String = "rules") throws(IngestReceiverError) {
        let object: JSONNode
        do {
            object = try BoundedJSONParser(maxDepth: 16, maxElements: 100_000).parse(json)
        } catch {
            throw IngestReceiverError(.rules, "\(file): not valid JSON: \(error)")
        }
        guard case .object(let root) = object else {
            throw IngestReceiverError(.rules, "\(file): expected a JSON object at the top level")
        }
        let reader = RulesReader(file: file)
        try reader.refuseUnknown(root, allowed: Self.rootFields, at: "")
        if let seed = try reader.integer(root, "seed", Ranges.seed) { script.seed = UInt64(seed) }
        if let mix = root["mix"] {
            guard case .array(let items) = mix else {
                throw reader.fail("mix", "an array of {\"answer\", \"percent\"}", mix)
            }
            script.mix = []
            for (index, item) in items.enumerated() {
                let field = "mix[\(index)]"
                guard case .object(let entry) = item else { throw reader.fail(field, "an object", item) }
                try reader.refuseUnknown(entry, allowed: ["answer", "percent"], at: field)
                let answer: ScriptedOutcome?
                switch entry["answer"] {
                case .string(let text)?: answer = ScriptedOutcome(text)
                case .number?: answer = .status(try reader.integer(entry, "answer", Ranges.status, at: field) ?? 0)
                default: answer = nil
                }
                guard let answer else {
                    throw reader.fail("\(field).answer", "a status (e.g. 503), \"hang\" or \"close\"", entry["answer"])
                }
                guard let percent = try reader.number(entry, "percent", Ranges.percent, at: field) else {
                    throw reader.fail("\(field).percent", Ranges.percent.description, nil)
                }
                script.mix.append(MixEntry(answer, percent: percent))
            }
        }
        if let failFirst = root["fail_first"] {
            guard case .object(let object) = failFirst else {
                throw reader.fail("fail_first", "an object {\"count\", \"status\"}", failFirst)
            }
            try reader.refuseUnknown(object, allowed: ["count", "status"], at: "fail_first")
            if let count = try reader.integer(object, "count", Ranges.count, at: "fail_first") {
                script.failFirst = count
            }
            if let status = try reader.integer(object, "status", Ranges.status, at: "fail_first") {
                script.failFirstStatus = status
            }
        }
        if let retryAfter = root["retry_after"] {
            switch retryAfter {
            case .string(let text): script.retryAfter = text
            case .number: script.retryAfter = "\(try reader.integer(root, "retry_after", Ranges.retryAfter) ?? 0)"
            default: throw reader.fail("retry_after", "seconds (a number) or an HTTP date (a string)", retryAfter)
            }
        }
        if let latency = try reader.integer(root, "latency_ms", Ranges.latencyMillis) { script.latencyMillis = latency }
        if let hang = try reader.integer(root, "hang_ms", Ranges.hangMillis) { script.hangMillis = hang }
        if let store = try reader.bool(root, "store_before_fault") { script.storeBeforeFault = store }
        if let require = try reader.bool(root, "require_token") { auth.requireToken = require }
        if let tokens = try reader.strings(root, "tokens") { auth.tokens = tokens }
        if let endpoint = root["token_endpoint"] {
            let field = "token_endpoint"
            guard case .object(let object) = endpoint else { throw reader.fail(field, "an object", endpoint) }
            try reader.refuseUnknown(object, allowed: Self.tokenFields, at: field)
            if let path = object["path"] {
                switch path {
                case .string(let text): tokenEndpoint.path = text
                case .null: tokenEndpoint.path = nil
                default:
                    throw reader.fail("\(field).path", "a path like \"/oauth/token\", or null to turn it off", path)
                }
            }
            if let expiresIn = try reader.integer(object, "expires_in", Ranges.expiresIn, at: field) {
                tokenEndpoint.expiresIn = expiresIn
            }
            if let status = try reader.integer(object, "fail_status", Ranges.status, at: field) {
                tokenEndpoint.failStatus = status
            }
            if let count = try reader.integer(object, "fail_first", Ranges.count, at: field) {
                tokenEndpoint.failFirst = count
            }
            if let omit = try reader.bool(object, "omit_token", at: field) { tokenEndpoint.omitToken = omit }
            if let refresh = try reader.strings(object, "refresh_tokens", at: field) {
                tokenEndpoint.refreshTokens = refresh
            }
        }
        do {
            _ = try validated()
        } catch {
            throw IngestReceiverError(.rules, "\(file): \(error.message)")
        }
    }

    static let rootFields: Set<String> = [
        "seed", "mix", "fail_first", "retry_after", "latency_ms", "hang_ms", "store_before_fault",
        "require_token", "tokens", "token_endpoint",
    ]
    static let tokenFields: Set<String> = [
        "path", "expires_in", "fail_status", "fail_first", "omit_token", "refresh_tokens",
    ]
}

/// Typed reads from a rules-file object, each error naming the file, the field and what was expected.
private struct RulesReader {
    let file: String

    func fail(_ field: String, _ expected: String, _ got: JSONNode?) -> IngestReceiverError {
        let shown: String
        switch got {
        case nil: shown = "nothing"
        case .string(let text)?: shown = "\"\(text)\""
        case .number(let text)?: shown = text
        case .bool(let flag)?: shown = flag ? "true" : "false"
        case .null?: shown = "null"
        case .array?: shown = "an array"
        case .object?: shown = "an object"
        }
        return IngestReceiverError(.rules, "\(file): \(field): expected \(expected), got \(shown)")
    }

    func refuseUnknown(
        _ object: [String: JSONNode], allowed: Set<String>, at place: String
    ) throws(IngestReceiverError) {
        if let unknown = object.keys.sorted().first(where: { !allowed.contains($0) }) {
            let name = place.isEmpty ? unknown : "\(place).\(unknown)"
            throw IngestReceiverError(
                .rules, "\(file): \(name): unknown field; expected one of \(allowed.sorted().joined(separator: ", "))")
        }
    }

    private func name(_ key: String, _ place: String) -> String { place.isEmpty ? key : "\(place).\(key)" }

    /// A whole number in `range`, read exactly from its text.
    func integer(
        _ object: [String: JSONNode], _ key: String, _ range: NumberRange, at place: String = ""
    ) throws(IngestReceiverError) -> Int? {
        guard let value = object[key] else { return nil }
        guard case .number(let text) = value else { throw fail(name(key, place), range.description, value) }
        do {
            return Int(try range.readInteger(text))
        } catch {
            throw IngestReceiverError(.rules, "\(file): \(name(key, place)): \(error)")
        }
    }

    /// A number in `range`.
    func number(
        _ object: [String: JSONNode], _ key: String, _ range: NumberRange, at place: String = ""
    ) throws(IngestReceiverError) -> Double? {
        guard let value = object[key] else { return nil }
        guard case .number(let text) = value else { throw fail(name(key, place), range.description, value) }
        do {
            return try range.read(text)
        } catch {
            throw IngestReceiverError(.rules, "\(file): \(name(key, place)): \(error)")
        }
    }

    func bool(_ object: [String: JSONNode], _ key: String, at place: String = "") throws(IngestReceiverError) -> Bool? {
        guard let value = object[key] else { return nil }
        guard case .bool(let flag) = value else { throw fail(name(key, place), "true or false", value) }
        return flag
    }

    func strings(
        _ object: [String: JSONNode], _ key: String, at place: String = ""
    ) throws(IngestReceiverError) -> [String]? {
        guard let value = object[key] else { return nil }
        guard case .array(let items) = value else { throw fail(name(key, place), "an array of strings", value) }
        var strings: [String] = []
        for item in items {
            guard case .string(let text) = item else { throw fail(name(key, place), "an array of strings", value) }
            strings.append(text)
        }
        return strings
    }
}
