import BeekonDevice
import FleetDescription
import FleetEngine
import FleetReport
import HTTPTypes
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
    var headerFields = HTTPFields()

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
                + NameSuggestion.hint(for: String(field.split(separator: ".").last ?? ""), among: allowed)
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
            headerFields: [.allow: allowed.joined(separator: ", ")])
    }

    static let unauthorized = APIError(
        status: 401, code: .unauthorized,
        message: "a valid admin token is required: send `Authorization: Bearer TOKEN`",
        headerFields: [.wwwAuthenticate: "Bearer"])

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
        status: Int, code: Code, message: String, field: String? = nil, headerFields: HTTPFields = [:]
    ) {
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.headerFields = headerFields
    }

    var reply: OutgoingReply {
        let body = ErrorBody(error: ErrorBody.Detail(code: code, message: message, field: Omittable(field)))
        var fields = headerFields
        fields[.cacheControl] = "no-store"
        return .json(status, APIJSON.bytes(body, capacity: 128), headerFields: fields)
    }
}
