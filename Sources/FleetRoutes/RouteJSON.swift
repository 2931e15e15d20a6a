import JSON

/// A JSON value with the line and column where it starts.
///
/// GeoJSON errors must point into the file, and `JSONSerialization` forgets positions, so route
/// files are read by this small reader instead.
struct RouteJSON {
    package indirect enum Value {
        case object([(key: String, value: RouteJSON)])
        case array([RouteJSON])
        case string(String)
        case number(Double)
        case bool(Bool)
        case null
    }

    package var value: Value
    package var position: RouteSourcePosition

    /// The member named `key` of an object (the first, if repeated); nil otherwise.
    package subscript(key: String) -> RouteJSON? {
        guard case .object(let members) = value else { return nil }
        return members.first { $0.key == key }?.value
    }

    package var string: String? {
        if case .string(let text) = value { return text }
        return nil
    }

    package var array: [RouteJSON]? {
        if case .array(let items) = value { return items }
        return nil
    }

    package var number: Double? {
        if case .number(let number) = value { return number }
        return nil
    }

    /// A short name of the value's kind, for error messages.
    package var kind: String {
        switch value {
        case .object: "an object"
        case .array: "an array"
        case .string(let text): "the string \"\(text)\""
        case .number(let number): "the number \(number)"
        case .bool(let flag): "\(flag)"
        case .null: "null"
        }
    }

    /// Parses a whole JSON document from UTF-8 `bytes` (a UTF-8 byte order mark is skipped) with
    /// the one parser (`JSONParser`), naming `file` and the line and column in errors.
    package static func parse(_ bytes: [UInt8], file: String) throws(RouteError) -> RouteJSON {
        let skipped = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        return try bytes.withUnsafeBufferPointer { all throws(RouteError) in
            let text = UnsafeBufferPointer(rebasing: all[skipped...])
            var builder = RouteJSONBuilder(bytes: text)
            do throws(JSONSyntaxError) {
                return try JSONParser(maxDepth: RouteJSONBuilder.maximumDepth).parse(text, into: &builder)
            } catch {
                throw RouteJSONBuilder.routeError(error, in: text, file: file)
            }
        }
    }
}
