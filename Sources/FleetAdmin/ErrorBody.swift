import FleetReport

/// Every error answer: `{"error": {"code", "message", "field"?}}`.
struct ErrorBody: APIBody {
    struct Detail: APIBody {
        var code: APIError.Code
        var message: String
        var field: Omittable<String>

        static let example = Detail(code: .badRequest, message: "", field: .absent)
        static let notes = [
            "field": APINote(
                "The field at fault: `warp`, `selector.group`, `spec.colour`, `params.ms`, `count`, `sort`, …")
        ]
    }

    var error: Detail

    static let example = ErrorBody(error: .example)
    static let component: String? = "Error"
}
