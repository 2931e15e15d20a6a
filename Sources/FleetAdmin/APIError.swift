import BeekonDevice
import FleetDescription
import FleetEngine
import MicroHTTP

/// An error answer of the admin API: `{"error": {"code", "message", "field"?}}` with its status.
struct APIError: Error, Sendable {
    /// What went wrong, as the body's `code` says it.
    enum Code: String, APIEnum, Sendable {
        case notFound = "not_found"
        case badRequest = "bad_request"
        case unknownField = "unknown_field"
        case badType = "bad_type"
        case tooLarge = "too_large"
        case unauthorized
        case methodNotAllowed = "method_not_allowed"
        case conflict
        case forbidden
        case unsupportedMediaType = "unsupported_media_type"
        case misdirectedRequest = "misdirected_request"
    }

    var status: Int
    var code: Code
    var message: String
    var field: String?
    var headers: [(name: String, value: String)] = []

    static func badRequest(_ message: String, field: String? = nil) -> APIError {
        APIError(status: 400, code: .badRequest, message: message, field: field)
    }

    static func badType(_ field: String, expected: String, got value: JSONValue) -> APIError {
        APIError(
            status: 400, code: .badType, message: "`\(field)` must be \(expected), not \(value.kindName)",
            field: field)
    }

    /// A number its field's range refuses: `\`warp\` "1e300" is out of range; expected a number
    /// from 0.01 to 10000`.
    static func badNumber(_ field: String, _ problem: NumberProblem) -> APIError {
        .badRequest("`\(field)` \(problem)", field: field)
    }

    /// Not a JSON number where one is expected (NaN or infinity sent as a string, say).
    static func badType(_ field: String, range: NumberRange, got value: JSONValue) -> APIError {
        badType(field, number: range.description, got: value)
    }

    /// Not what a number field takes (`number`: `a number from 0.01 to 10000 or "max"`), naming
    /// the text of a string sent instead.
    static func badType(_ field: String, number: String, got value: JSONValue) -> APIError {
        var got = value.kindName
        if case .string(let text) = value { got += " (\"\(text.prefix(40))\")" }
        return APIError(
            status: 400, code: .badType, message: "`\(field)` must be \(number), not \(got)", field: field)
    }

    static func unknownField(_ field: String, allowed: [String]) -> APIError {
        APIError(
            status: 400, code: .unknownField,
            message: "unknown field `\(field)`"
                + (allowed.isEmpty ? "; this takes no fields" : "; expected one of \(allowed.joined(separator: ", "))"),
            field: field)
    }

    static func notFound(_ message: String, field: String? = nil) -> APIError {
        APIError(status: 404, code: .notFound, message: message, field: field)
    }

    static func notAllowed(_ allowed: [String]) -> APIError {
        APIError(
            status: 405, code: .methodNotAllowed,
            message: "method not allowed; use \(allowed.joined(separator: " or "))",
            headers: [("Allow", allowed.joined(separator: ", "))])
    }

    static let unauthorized = APIError(
        status: 401, code: .unauthorized,
        message: "a valid admin token is required: send `Authorization: Bearer TOKEN`",
        headers: [("WWW-Authenticate", "Bearer")])

    static let tooLarge = APIError(status: 413, code: .tooLarge, message: "the body is larger than 64 KiB")

    /// The admin API's answer to a refused fleet command.
    init(_ error: FleetControlError) {
        switch error.kind {
        case .badRequest: self.init(status: 400, code: .badRequest, message: error.message, field: error.field)
        case .notFound: self.init(status: 404, code: .notFound, message: error.message, field: error.field)
        case .conflict, .unavailable:
            self.init(status: 409, code: .conflict, message: error.message, field: error.field)
        }
    }

    init(
        status: Int, code: Code, message: String, field: String? = nil, headers: [(name: String, value: String)] = []
    ) {
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.headers = headers
    }

    var reply: OutgoingReply {
        let body = ErrorBody(error: ErrorBody.Detail(code: code, message: message, field: Omittable(field)))
        return .json(status, APIJSON.bytes(body, capacity: 128), headers: headers + [("Cache-Control", "no-store")])
    }
}

/// A JSON object from a request, read field by field: each read checks the type, and
/// `finish()` refuses fields nobody read.
struct BodyObject {
    let members: [(key: String, value: JSONValue)]
    /// Prefix for field names in messages (`selector.`).
    let path: String
    private(set) var read: Set<String> = []

    /// Parses a request body that must be one JSON object.
    init(body: [UInt8]) throws(APIError) {
        let value: JSONValue
        do throws(JSONValue.SyntaxError) {
            value = try JSONValue.parse(body)
        } catch {
            throw .badRequest("the body is not valid JSON: \(error.message)")
        }
        guard case .object(let members) = value else {
            throw APIError(
                status: 400, code: .badType, message: "the body must be a JSON object, not \(value.kindName)")
        }
        self.members = members
        path = ""
    }

    init(_ value: JSONValue, field: String) throws(APIError) {
        guard case .object(let members) = value else { throw .badType(field, expected: "an object", got: value) }
        self.members = members
        path = field + "."
    }

    var keys: [String] { members.map(\.key) }

    mutating func value(_ key: String) -> JSONValue? {
        read.insert(key)
        guard let member = members.last(where: { $0.key == key }), member.value != .null else { return nil }
        return member.value
    }

    mutating func string(_ key: String) throws(APIError) -> String? {
        guard let value = value(key) else { return nil }
        guard case .string(let text) = value else { throw .badType(path + key, expected: "a string", got: value) }
        return text
    }

    /// A number in `range` (its field's one range): anything else is refused naming the
    /// field, the value and the range.
    mutating func number(_ key: String, in range: NumberRange) throws(APIError) -> Double? {
        guard let value = value(key) else { return nil }
        guard case .number(_, let text) = value else { throw .badType(path + key, range: range, got: value) }
        do throws(NumberProblem) {
            return try range.read(text)
        } catch {
            throw .badNumber(path + key, error)
        }
    }

    /// A warp: a number in `FleetFile.warpRange`, or the string `max`.
    mutating func warp(_ key: String) throws(APIError) -> Warp? {
        guard let value = value(key) else { return nil }
        switch value {
        case .string(Warp.maxWord):
            return .max
        case .number(_, let text):
            do throws(NumberProblem) {
                return try Warp.read(text)
            } catch {
                throw .badNumber(path + key, error)
            }
        default:
            throw .badType(path + key, number: "\(FleetFile.warpRange) or \"\(Warp.maxWord)\"", got: value)
        }
    }

    /// A whole number in `range`, read exactly from its text (`1e3`, `2.0` and `2^63` refused).
    mutating func integer(_ key: String, in range: NumberRange) throws(APIError) -> Int64? {
        guard let value = value(key) else { return nil }
        guard case .number(_, let text) = value else { throw .badType(path + key, range: range, got: value) }
        do throws(NumberProblem) {
            return try range.readInteger(text)
        } catch {
            throw .badNumber(path + key, error)
        }
    }

    mutating func bool(_ key: String) throws(APIError) -> Bool? {
        guard let value = value(key) else { return nil }
        guard case .bool(let flag) = value else { throw .badType(path + key, expected: "true or false", got: value) }
        return flag
    }

    mutating func object(_ key: String) throws(APIError) -> BodyObject? {
        guard let value = value(key) else { return nil }
        return try BodyObject(value, field: path + key)
    }

    mutating func strings(_ key: String) throws(APIError) -> [String]? {
        guard let value = value(key) else { return nil }
        guard case .array(let items) = value else {
            throw .badType(path + key, expected: "an array of strings", got: value)
        }
        var result: [String] = []
        for (index, item) in items.enumerated() {
            guard case .string(let text) = item else {
                throw .badType("\(path)\(key)[\(index)]", expected: "a string", got: item)
            }
            result.append(text)
        }
        return result
    }

    /// Refuses the first field no read asked for.
    func finish() throws(APIError) {
        if let unknown = members.first(where: { !read.contains($0.key) }) {
            throw .unknownField(path + unknown.key, allowed: read.sorted())
        }
    }
}
