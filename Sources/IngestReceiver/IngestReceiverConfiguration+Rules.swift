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
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(json))
        } catch {
            throw IngestReceiverError(.rules, "\(file): not valid JSON: \(Self.reason(error))")
        }
        guard let root = object as? [String: Any] else {
            throw IngestReceiverError(.rules, "\(file): expected a JSON object at the top level")
        }
        let reader = RulesReader(file: file)
        try reader.refuseUnknown(root, allowed: Self.rootFields, at: "")
        if let seed = try reader.integer(root, "seed") {
            guard seed >= 0 else { throw reader.fail("seed", "a non-negative integer", seed) }
            script.seed = UInt64(seed)
        }
        if let mix = root["mix"] {
            guard let items = mix as? [Any] else { throw reader.fail("mix", "an array of {\"answer\", \"percent\"}", mix) }
            script.mix = []
            for (index, item) in items.enumerated() {
                let field = "mix[\(index)]"
                guard let entry = item as? [String: Any] else { throw reader.fail(field, "an object", item) }
                try reader.refuseUnknown(entry, allowed: ["answer", "percent"], at: field)
                let answer: ScriptedOutcome?
                switch entry["answer"] {
                case let text as String: answer = ScriptedOutcome(text)
                case let number as NSNumber where !RulesReader.isBool(number): answer = .status(number.intValue)
                default: answer = nil
                }
                guard let answer else {
                    throw reader.fail("\(field).answer", "a status (e.g. 503), \"hang\" or \"close\"", entry["answer"])
                }
                guard let percent = try reader.double(entry, "percent", at: field) else {
                    throw reader.fail("\(field).percent", "a number 0...100", nil)
                }
                script.mix.append(MixEntry(answer, percent: percent))
            }
        }
        if let failFirst = root["fail_first"] {
            guard let object = failFirst as? [String: Any] else {
                throw reader.fail("fail_first", "an object {\"count\", \"status\"}", failFirst)
            }
            try reader.refuseUnknown(object, allowed: ["count", "status"], at: "fail_first")
            if let count = try reader.integer(object, "count", at: "fail_first") { script.failFirst = count }
            if let status = try reader.integer(object, "status", at: "fail_first") { script.failFirstStatus = status }
        }
        if let retryAfter = root["retry_after"] {
            switch retryAfter {
            case let text as String: script.retryAfter = text
            case let number as NSNumber where !RulesReader.isBool(number): script.retryAfter = "\(number.intValue)"
            default: throw reader.fail("retry_after", "seconds (a number) or an HTTP date (a string)", retryAfter)
            }
        }
        if let latency = try reader.integer(root, "latency_ms") { script.latencyMillis = latency }
        if let hang = try reader.integer(root, "hang_ms") { script.hangMillis = hang }
        if let store = try reader.bool(root, "store_before_fault") { script.storeBeforeFault = store }
        if let require = try reader.bool(root, "require_token") { auth.requireToken = require }
        if let tokens = try reader.strings(root, "tokens") { auth.tokens = tokens }
        if let endpoint = root["token_endpoint"] {
            let field = "token_endpoint"
            guard let object = endpoint as? [String: Any] else { throw reader.fail(field, "an object", endpoint) }
            try reader.refuseUnknown(object, allowed: Self.tokenFields, at: field)
            if let path = object["path"] {
                switch path {
                case let text as String: tokenEndpoint.path = text
                case is NSNull: tokenEndpoint.path = nil
                default: throw reader.fail("\(field).path", "a path like \"/oauth/token\", or null to turn it off", path)
                }
            }
            if let expiresIn = try reader.integer(object, "expires_in", at: field) { tokenEndpoint.expiresIn = expiresIn }
            if let status = try reader.integer(object, "fail_status", at: field) { tokenEndpoint.failStatus = status }
            if let count = try reader.integer(object, "fail_first", at: field) { tokenEndpoint.failFirst = count }
            if let omit = try reader.bool(object, "omit_token", at: field) { tokenEndpoint.omitToken = omit }
            if let refresh = try reader.strings(object, "refresh_tokens", at: field) { tokenEndpoint.refreshTokens = refresh }
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

    /// Foundation's reason for a JSON error, without the domain boilerplate.
    static func reason(_ error: any Error) -> String {
        (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? error.localizedDescription
    }
}

/// Typed reads from a rules-file object, each error naming the file, the field and what was expected.
private struct RulesReader {
    let file: String

    static func isBool(_ number: NSNumber) -> Bool { String(cString: number.objCType) == "c" }

    func fail(_ field: String, _ expected: String, _ got: Any?) -> IngestReceiverError {
        let shown: String
        switch got {
        case nil: shown = "nothing"
        case let text as String: shown = "\"\(text)\""
        case let number as NSNumber: shown = Self.isBool(number) ? (number.boolValue ? "true" : "false") : "\(number)"
        case is NSNull: shown = "null"
        case is [Any]: shown = "an array"
        case is [String: Any]: shown = "an object"
        default: shown = "\(got!)"
        }
        return IngestReceiverError(.rules, "\(file): \(field): expected \(expected), got \(shown)")
    }

    func refuseUnknown(_ object: [String: Any], allowed: Set<String>, at place: String) throws(IngestReceiverError) {
        if let unknown = object.keys.sorted().first(where: { !allowed.contains($0) }) {
            let name = place.isEmpty ? unknown : "\(place).\(unknown)"
            throw IngestReceiverError(
                .rules, "\(file): \(name): unknown field; expected one of \(allowed.sorted().joined(separator: ", "))")
        }
    }

    private func name(_ key: String, _ place: String) -> String { place.isEmpty ? key : "\(place).\(key)" }

    func integer(_ object: [String: Any], _ key: String, at place: String = "") throws(IngestReceiverError) -> Int? {
        guard let value = object[key] else { return nil }
        guard let number = value as? NSNumber, !Self.isBool(number), number.doubleValue.rounded() == number.doubleValue,
            abs(number.doubleValue) < 1e15
        else { throw fail(name(key, place), "an integer", value) }
        return number.intValue
    }

    func double(_ object: [String: Any], _ key: String, at place: String = "") throws(IngestReceiverError) -> Double? {
        guard let value = object[key] else { return nil }
        guard let number = value as? NSNumber, !Self.isBool(number) else { throw fail(name(key, place), "a number", value) }
        return number.doubleValue
    }

    func bool(_ object: [String: Any], _ key: String, at place: String = "") throws(IngestReceiverError) -> Bool? {
        guard let value = object[key] else { return nil }
        guard let number = value as? NSNumber, Self.isBool(number) else { throw fail(name(key, place), "true or false", value) }
        return number.boolValue
    }

    func strings(_ object: [String: Any], _ key: String, at place: String = "") throws(IngestReceiverError) -> [String]? {
        guard let value = object[key] else { return nil }
        guard let strings = value as? [String] else { throw fail(name(key, place), "an array of strings", value) }
        return strings
    }
}
