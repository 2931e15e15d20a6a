import Foundation

@testable import FleetAdmin

/// Checks JSON values against the schema objects of one OpenAPI 3.0 document, for the subset of
/// JSON Schema the admin's document uses: `type` (`integer` a whole number written without a
/// fraction or an exponent), `nullable` (OpenAPI 3.0.3: it admits null only beside a `type`, and
/// `enum` still applies to it), `enum`, `properties`, `required`, `additionalProperties` (a
/// boolean or a schema), `patternProperties`, `minProperties`, `items`, `minItems`, `maxItems`, `minLength`,
/// `maxLength`, `pattern` (by `NSRegularExpression`), `minimum`, `maximum`, `exclusiveMinimum` (3.0's
/// boolean), `oneOf`, `anyOf`, `allOf`, `format` (`date-time` as RFC 3339, `int64`, `binary`) and `$ref`
/// into the document.
/// A keyword outside that subset is a problem of its own, so the document cannot rely on a rule
/// this checker would skip; annotations (`description`, `title`, `default`, `example`) are read
/// past. An object with a member twice is a problem too: which one counts is up to the reader.
struct SchemaValidator: Sendable {
    /// The whole document: `$ref`s point into it.
    let document: JSONValue

    static let keywords: Set<String> = [
        "type", "nullable", "enum", "properties", "required", "additionalProperties", "items", "minItems", "maxItems",
        "minLength", "minimum", "maximum", "oneOf", "allOf", "format", "$ref", "anyOf", "maxLength", "pattern",
        "patternProperties", "minProperties", "exclusiveMinimum", "not",
    ]
    static let annotations: Set<String> = ["description", "title", "default", "example"]

    /// Where `value` breaks `schema`, each as `where: what`; empty when it is valid.
    func problems(_ value: JSONValue, _ schema: JSONValue, at location: String = "$") -> [String] {
        var problems: [String] = []
        check(value, schema, location, &problems)
        return problems
    }

    /// The value a local reference (`#/components/schemas/Fleet`) points to.
    func resolve(_ reference: String) -> JSONValue? {
        guard reference.hasPrefix("#/") else { return nil }
        var value: JSONValue? = document
        for token in reference.dropFirst(2).split(separator: "/", omittingEmptySubsequences: false) {
            let name = token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            value = value?[name]
        }
        return value
    }

    private func check(_ value: JSONValue, _ schema: JSONValue, _ at: String, _ problems: inout [String]) {
        guard case .object(let members) = schema else {
            problems.append("\(at): the schema is not an object: \(schema.text.prefix(80))")
            return
        }
        if let reference = schema["$ref"] {
            // OpenAPI 3.0 ignores a reference's siblings; `allOf: [{$ref}]` keeps them.
            if members.count > 1 {
                problems.append("\(at): the siblings of a $ref are ignored: \(schema.text.prefix(120))")
            }
            guard case .string(let pointer) = reference, let target = resolve(pointer) else {
                problems.append("\(at): the $ref \(reference.text) points to nothing in the document")
                return
            }
            check(value, target, at, &problems)
            return
        }
        for member in members where !Self.keywords.contains(member.key) && !Self.annotations.contains(member.key) {
            problems.append("\(at): the schema keyword `\(member.key)` is not checked here")
        }
        checkType(value, schema, at, &problems)
        if let options = schema["enum"] {
            if case .array(let items) = options {
                if !items.contains(where: { Self.same($0, value) }) {
                    problems.append("\(at): \(value.text.prefix(80)) is not one of \(options.text.prefix(200))")
                }
            } else {
                problems.append("\(at): the schema's enum is not an array")
            }
        }
        switch value {
        case .object(let fields): checkObject(fields, schema, at, &problems)
        case .array(let items): checkArray(items, schema, at, &problems)
        case .number(let number, let text): checkNumber(number, text, schema, at, &problems)
        case .string(let text): checkString(text, schema, at, &problems)
        case .null, .bool: break
        }
        if let all = schema["allOf"] {
            for part in Self.schemas(all, "allOf", at, &problems) { check(value, part, at, &problems) }
        }
        if let any = schema["anyOf"] {
            let parts = Self.schemas(any, "anyOf", at, &problems)
            let results = parts.map { self.problems(value, $0, at: at) }
            if !results.contains(where: \.isEmpty) {
                let why = results.enumerated().map { "[\($0)] \($1.first ?? "valid")" }.joined(separator: "; ")
                problems.append("\(at): valid against none of anyOf's \(parts.count) schemas: " + why.prefix(600))
            }
        }
        if let not = schema["not"], self.problems(value, not, at: at).isEmpty {
            problems.append("\(at): valid against `not`'s schema")
        }
        if let one = schema["oneOf"] {
            let parts = Self.schemas(one, "oneOf", at, &problems)
            let results = parts.map { self.problems(value, $0, at: at) }
            let matching = results.filter(\.isEmpty).count
            if matching != 1 {
                let why = results.enumerated().map { "[\($0)] \($1.first ?? "valid")" }.joined(separator: "; ")
                problems.append(
                    "\(at): valid against \(matching) of oneOf's \(parts.count) schemas, not exactly one"
                        + (matching == 0 ? ": " + why.prefix(600) : ""))
            }
        }
    }

    private func checkType(_ value: JSONValue, _ schema: JSONValue, _ at: String, _ problems: inout [String]) {
        guard let type = schema["type"] else { return }
        guard case .string(let name) = type else {
            problems.append("\(at): the schema's type is not a string: \(type.text)")
            return
        }
        let fits: Bool
        switch (name, value) {
        case (_, .null): fits = schema["nullable"] == .bool(true)
        case ("object", .object), ("array", .array), ("string", .string), ("boolean", .bool), ("number", .number):
            fits = true
        case ("integer", .number(_, let text)): fits = Self.isIntegerText(text)
        case ("object", _), ("array", _), ("string", _), ("boolean", _), ("number", _), ("integer", _): fits = false
        default:
            problems.append("\(at): the schema's type `\(name)` is not a JSON Schema type")
            return
        }
        if !fits { problems.append("\(at): \(value.text.prefix(80)) is not of type \(name)") }
    }

    private func checkObject(
        _ fields: [(key: String, value: JSONValue)], _ schema: JSONValue, _ at: String, _ problems: inout [String]
    ) {
        var seen: Set<String> = []
        for field in fields where !seen.insert(field.key).inserted {
            problems.append("\(at): the member \"\(field.key)\" appears twice")
        }
        if let required = schema["required"] {
            guard case .array(let names) = required else {
                problems.append("\(at): the schema's required is not an array")
                return
            }
            for case .string(let name) in names where !seen.contains(name) {
                problems.append("\(at): the required member \"\(name)\" is missing")
            }
        }
        if let least = Self.count(schema["minProperties"]), fields.count < least {
            problems.append("\(at): \(fields.count) members, fewer than minProperties \(least)")
        }
        let properties = schema["properties"]
        if let properties, !Self.isObject(properties) {
            problems.append("\(at): the schema's properties is not an object")
        }
        var patterns: [(String, JSONValue)] = []
        if case .object(let entries)? = schema["patternProperties"] { patterns = entries.map { ($0.key, $0.value) } }
        for field in fields {
            let place = "\(at).\(field.key)"
            if let property = properties?[field.key] {
                check(field.value, property, place, &problems)
                continue
            }
            let matching = patterns.filter { Self.matches(field.key, $0.0) }
            for (_, property) in matching { check(field.value, property, place, &problems) }
            if !matching.isEmpty { continue }
            switch schema["additionalProperties"] {
            case nil, .bool(true)?: break
            case .bool(false)?: problems.append("\(at): the member \"\(field.key)\" is not in the schema")
            case let extra?: check(field.value, extra, place, &problems)
            }
        }
    }

    private func checkArray(_ items: [JSONValue], _ schema: JSONValue, _ at: String, _ problems: inout [String]) {
        if let least = Self.count(schema["minItems"]), items.count < least {
            problems.append("\(at): \(items.count) items, fewer than minItems \(least)")
        }
        if let most = Self.count(schema["maxItems"]), items.count > most {
            problems.append("\(at): \(items.count) items, more than maxItems \(most)")
        }
        guard let itemSchema = schema["items"] else { return }
        for (index, item) in items.enumerated() { check(item, itemSchema, "\(at)[\(index)]", &problems) }
    }

    private func checkNumber(
        _ number: Double, _ text: String, _ schema: JSONValue, _ at: String, _ problems: inout [String]
    ) {
        if case .number(let least, _)? = schema["minimum"], number < least {
            problems.append("\(at): \(text) is below the minimum \(least)")
        }
        if case .number(let least, _)? = schema["minimum"], schema["exclusiveMinimum"] == .bool(true),
            number <= least
        {
            problems.append("\(at): \(text) is not above the exclusive minimum \(least)")
        }
        if case .number(let most, _)? = schema["maximum"], number > most {
            problems.append("\(at): \(text) is above the maximum \(most)")
        }
        switch schema["format"] {
        case nil, .string("double")?, .string("float")?: break
        case .string("int64")?:
            if !Self.isIntegerText(text) || Int64(text) == nil { problems.append("\(at): \(text) is not an int64") }
        case .string("int32")?:
            if !Self.isIntegerText(text) || Int32(text) == nil { problems.append("\(at): \(text) is not an int32") }
        case let format?: problems.append("\(at): the number format \(format.text) is not checked here")
        }
    }

    private func checkString(_ text: String, _ schema: JSONValue, _ at: String, _ problems: inout [String]) {
        // JSON Schema counts characters as code points.
        if let least = Self.count(schema["minLength"]), text.unicodeScalars.count < least {
            problems.append("\(at): \(text.unicodeScalars.count) characters, fewer than minLength \(least)")
        }
        if let most = Self.count(schema["maxLength"]), text.unicodeScalars.count > most {
            problems.append("\(at): \(text.unicodeScalars.count) characters, more than maxLength \(most)")
        }
        if case .string(let pattern)? = schema["pattern"], !Self.matches(text, pattern) {
            problems.append("\(at): \"\(text.prefix(60))\" does not match the pattern \(pattern)")
        }
        switch schema["format"] {
        case nil, .string("binary")?: break
        case .string("date-time")?:
            if !Self.isDateTime(text) { problems.append("\(at): \"\(text.prefix(60))\" is not an RFC 3339 date-time") }
        case let format?: problems.append("\(at): the string format \(format.text) is not checked here")
        }
    }

    private static func schemas(_ value: JSONValue, _ keyword: String, _ at: String, _ problems: inout [String])
        -> [JSONValue]
    {
        guard case .array(let parts) = value, !parts.isEmpty else {
            problems.append("\(at): the schema's \(keyword) is not a non-empty array")
            return []
        }
        return parts
    }

    /// Whether `pattern` matches somewhere in `text` (JSON Schema's patterns are not anchored).
    static func matches(_ text: String, _ pattern: String) -> Bool {
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return false }
        return expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    private static func isObject(_ value: JSONValue) -> Bool {
        if case .object = value { true } else { false }
    }

    private static func count(_ value: JSONValue?) -> Int? {
        guard case .number(_, let text)? = value else { return nil }
        return Int(text)
    }

    /// `-?(0|[1-9][0-9]*)`: JSON's integer syntax; `1.0` and `1e3` are numbers, not integers.
    static func isIntegerText(_ text: String) -> Bool {
        let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        guard let first = digits.first, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return false }
        return first != "0" || digits.count == 1
    }

    /// RFC 3339's `date-time`: `2026-06-15T08:00:10.000Z`, `…+02:00`; the fields in range.
    static func isDateTime(_ text: String) -> Bool {
        let characters = Array(text.uppercased())
        func number(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= characters.count else { return nil }
            let part = characters[start..<start + count]
            guard part.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            return Int(String(part))
        }
        func at(_ index: Int, _ character: Character) -> Bool {
            index < characters.count && characters[index] == character
        }
        guard let year = number(0, 4), at(4, "-"), let month = number(5, 2), at(7, "-"), let day = number(8, 2),
            at(10, "T"), let hour = number(11, 2), at(13, ":"), let minute = number(14, 2), at(16, ":"),
            let second = number(17, 2)
        else { return false }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...12).contains(month), (1...days[month - 1]).contains(day), hour < 24, minute < 60, second < 61 else {
            return false
        }
        var index = 19
        if at(index, ".") {
            index += 1
            let start = index
            while index < characters.count, characters[index].isASCII, characters[index].isNumber { index += 1 }
            guard index > start else { return false }
        }
        if at(index, "Z") { return index + 1 == characters.count }
        guard at(index, "+") || at(index, "-"), let offsetHours = number(index + 1, 2), at(index + 3, ":"),
            let offsetMinutes = number(index + 4, 2)
        else { return false }
        return offsetHours < 24 && offsetMinutes < 60 && index + 6 == characters.count
    }

    /// JSON equality: numbers by value, objects whatever their members' order.
    static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.number(let x, _), .number(let y, _)): return x == y
        case (.string(let x), .string(let y)): return x == y
        case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        case (.object(let x), .object(let y)):
            return x.count == y.count
                && x.allSatisfy { member in y.contains { $0.key == member.key && same($0.value, member.value) } }
        default: return false
        }
    }
}
