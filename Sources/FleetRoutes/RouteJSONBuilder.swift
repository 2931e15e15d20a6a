import JSON

/// Builds `RouteJSON` values, each with the line and column where it starts: the parser marks
/// values in document order, so one cursor walks the bytes once however long the line.
struct RouteJSONBuilder: JSONBuilder {
    /// Deeper nesting than any GeoJSON needs.
    static let maximumDepth = 256

    private let bytes: UnsafeBufferPointer<UInt8>
    private var cursor = RouteSourceCursor()
    private var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    mutating func mark(_ offset: Int) -> RouteSourcePosition {
        while index < offset {
            cursor.advance(over: bytes[index])
            index += 1
        }
        return cursor.position
    }

    func scalar(_ scalar: JSONScalar, at position: RouteSourcePosition) throws(JSONSyntaxError) -> RouteJSON {
        switch scalar {
        case .null: return RouteJSON(value: .null, position: position)
        case .bool(let flag): return RouteJSON(value: .bool(flag), position: position)
        case .string(let text): return RouteJSON(value: .string(text), position: position)
        case .number(let text):
            guard let number = Double(text), number.isFinite else {
                // `index` stands at the last value marked: this number's first byte.
                throw JSONSyntaxError(offset: index, kind: .numberNotFinite)
            }
            return RouteJSON(value: .number(number), position: position)
        }
    }

    func array(_ items: [RouteJSON], at position: RouteSourcePosition) -> RouteJSON {
        RouteJSON(value: .array(items), position: position)
    }

    /// Members in order; a key given twice is kept twice (`RouteJSON` reads the first).
    func object(_ members: [JSONMember<RouteJSON>], at position: RouteSourcePosition) -> RouteJSON {
        RouteJSON(value: .object(members.map { ($0.key, $0.value) }), position: position)
    }

    /// A parse error as a route file error, at its line and column.
    static func routeError(_ error: JSONSyntaxError, in bytes: UnsafeBufferPointer<UInt8>, file: String) -> RouteError {
        var cursor = RouteSourceCursor()
        for byte in bytes[..<min(error.offset, bytes.count)] { cursor.advance(over: byte) }
        let problem: String
        var expected: String?
        switch error.kind {
        case .endsEarly(let wanted):
            problem = "unexpected end of file"
            expected = inFile(wanted)
        case .unexpected(let found, let wanted):
            problem = "unexpected \(JSONSyntaxError.shown(found))"
            expected = inFile(wanted)
        case .tooDeep(let limit):
            problem = "arrays and objects nest too deeply"
            expected = "at most \(limit) levels"
        case .stringNeverEnds:
            problem = "a string is never closed"
            expected = "a closing \""
        case .numberNotFinite:
            problem = "a number is too large"
            expected = "a finite number"
        default:
            problem = error.problem
        }
        return RouteError(file: file, at: cursor.position, problem: problem, expected: expected)
    }

    /// In a file, "a value" is said to be a JSON one.
    private static func inFile(_ expected: String) -> String {
        expected == "a value" ? "a JSON value" : expected
    }
}
