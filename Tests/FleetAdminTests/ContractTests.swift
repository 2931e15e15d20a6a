import FleetEngine
import Foundation
import Testing
import Yams

@testable import FleetAdmin
@testable import FleetReport

/// One contract for the admin API, held both ways: the router's table and the served OpenAPI
/// document name the same operations, and every answer a test gets is checked against the
/// document (`AdminHarness.call`). These tests show the checks themselves can fail.
@Suite("Admin API contract")
struct ContractTests {
    static func contract() throws -> OpenAPIContract {
        try OpenAPIContract.served.get()
    }

    @Test("the route table and the served document have the same operations: method, path and operationId")
    func routesAreDocumented() throws {
        let documented = try Self.contract().operations.map { "\($0.method) \($0.path) \($0.operationID)" }
        // HEAD is GET without the body (RFC 9110), answered wherever the table says; OpenAPI
        // describes it with the GET operation, not as one of its own.
        let routed = AdminRouter.routes.flatMap { route in
            route.methods.filter { $0 != "HEAD" }.map { "\($0) \(route.path) \(route.operationID)" }
        }
        #expect(Set(routed).subtracting(documented).sorted() == [], "routes the document does not describe")
        #expect(Set(documented).subtracting(routed).sorted() == [], "documented operations no route answers")
        #expect(routed.count == Set(routed).count, "an operation is routed twice")
        for route in AdminRouter.routes where route.methods.contains("HEAD") {
            #expect(route.methods.contains("GET"), "\(route.path) answers HEAD but not GET")
        }
    }

    @Test(
        """
        every route refuses as the document says: 401 without the token, 421 for a foreign \
        Host, 403 from a foreign Origin, 415 for a body not sent as JSON, 413 over 64 KiB, \
        404 for an unknown device, 405 naming the path's methods; HEAD answers as GET
        """
    )
    func routeRefusals() async throws {
        let harness = try AdminHarness(token: "s3cret")
        let huge = #"{"pad": ""# + String(repeating: "x", count: 70_000) + #""}"#
        for route in AdminRouter.routes {
            let path = route.path.replacingOccurrences(of: "{id}", with: "walkers-0001")
                .replacingOccurrences(of: "{file}", with: "app.js")
            let area = AdminRoute.Area(path: route.path)
            let label = "\(route.operationID) \(path)"
            for method in route.methods {
                let body: String? = ["GET", "HEAD", "DELETE"].contains(method) ? nil : "{}"
                if area == .api {
                    #expect(await harness.call(method, path, body: body, token: "").status == 401, "\(method) \(label)")
                }
                let host = await harness.call(method, path, body: body, headers: [("Host", "evil.example")])
                #expect(host.status == (area == .probe ? 200 : 421), "\(method) \(label) from a foreign Host")
                if ["POST", "PATCH", "DELETE"].contains(method) {
                    let origin = await harness.call(
                        method, path, body: body, headers: [("Origin", "http://evil.example")])
                    #expect(origin.status == 403, "\(method) \(label) from a foreign Origin")
                    let text = await harness.call(method, path, body: "x", headers: [("Content-Type", "text/plain")])
                    #expect(text.status == 415, "\(method) \(label) with text/plain")
                    #expect(await harness.call(method, path, body: huge).status == 413, "\(method) \(label) huge")
                }
                if route.path.contains("{id}") {
                    let unknown = path.replacingOccurrences(of: "walkers-0001", with: "nobody")
                    let answer = await harness.call(method, unknown, body: body)
                    #expect(answer.status == 404, "\(method) \(unknown)")
                    #expect(method == "HEAD" || answer.errorField == "id", "\(method) \(unknown)")
                }
            }
            let methods = AdminRouter.routes.filter { $0.path == route.path }.flatMap(\.methods)
            let other = await harness.call("PUT", path)
            let allow = other.headers.first { $0.name.lowercased() == "allow" }?.value
            #expect(other.status == 405, "PUT \(label)")
            #expect(allow == methods.filter { $0 != "HEAD" }.joined(separator: ", "), "PUT \(label)")
            if !methods.contains("HEAD") {
                #expect(await harness.call("HEAD", path).status == 405, "HEAD \(label)")
            } else if route.methods.contains("HEAD") {
                let get = await harness.call("GET", path)
                let head = await harness.call("HEAD", path)
                #expect(head.status == get.status && head.body.isEmpty, "HEAD \(label)")
            }
        }
    }

    /// The schemas the validator is shown with, under `components.schemas` for `$ref`s.
    static let schemaDocument = """
        components:
          schemas:
            Point: {type: object, required: [x], additionalProperties: false, properties: {x: {type: integer}}}
        """

    @Test(
        "the schema validator takes what a schema allows and refuses the rest",
        arguments: [
            ("{type: integer}", "3", true), ("{type: integer}", "-12", true), ("{type: integer}", "3.0", false),
            ("{type: integer}", "1e3", false), ("{type: integer}", #""3""#, false), ("{type: integer}", "null", false),
            ("{type: integer, nullable: true}", "null", true), ("{type: number}", "2.5", true),
            ("{type: number}", "true", false), ("{type: boolean}", "false", true), ("{type: boolean}", "0", false),
            ("{type: string}", #""x""#, true), ("{type: string}", "[]", false), ("{type: array}", "{}", false),
            ("{type: object}", "[]", false), ("{type: object, nullable: true, required: [a]}", "null", true),
            ("{type: number, minimum: 0.01, maximum: 10000}", "0.01", true),
            ("{type: number, minimum: 0.01, maximum: 10000}", "0.0099", false),
            ("{type: number, minimum: 0.01, maximum: 10000}", "10000", true),
            ("{type: number, minimum: 0.01, maximum: 10000}", "10000.0001", false),
            ("{type: string, enum: [id, -id]}", #""-id""#, true), ("{type: string, enum: [id, -id]}", #""ID""#, false),
            ("{type: string, nullable: true, enum: [boot, null]}", "null", true),
            // OpenAPI 3.0.3: `enum` still applies to the null that `nullable` admits.
            ("{type: string, nullable: true, enum: [boot]}", "null", false),
            ("{$ref: '#/components/schemas/Point'}", #"{"x": 1}"#, true),
            ("{$ref: '#/components/schemas/Point'}", "{}", false),
            ("{$ref: '#/components/schemas/Point'}", #"{"x": 1, "y": 2}"#, false),
            ("{$ref: '#/components/schemas/Point'}", #"{"x": "1"}"#, false),
            ("{$ref: '#/components/schemas/Point'}", #"{"x": 1, "x": 1}"#, false),
            ("{$ref: '#/components/schemas/Nowhere'}", "1", false),
            ("{$ref: '#/components/schemas/Point', nullable: true}", #"{"x": 1}"#, false),
            ("{type: object, additionalProperties: {type: integer}}", #"{"a": 1, "b": 2}"#, true),
            ("{type: object, additionalProperties: {type: integer}}", #"{"a": "1"}"#, false),
            ("{type: object, properties: {a: {type: string}}}", #"{"a": "x", "b": 1}"#, true),
            ("{type: array, items: {type: string}, minItems: 1}", #"["a"]"#, true),
            ("{type: array, items: {type: string}, minItems: 1}", "[]", false),
            ("{type: array, items: {type: string}, minItems: 1}", #"["a", 1]"#, false),
            ("{type: string, minLength: 1}", #""a""#, true),
            ("{type: string, minLength: 1}", #""""#, false),
            ("{type: array, maxItems: 1}", "[1, 2]", false),
            ("{oneOf: [{type: integer}, {type: string}]}", #""a""#, true),
            ("{oneOf: [{type: integer}, {type: number}]}", "1", false),
            ("{oneOf: [{type: integer}, {type: string}]}", "true", false),
            ("{allOf: [{$ref: '#/components/schemas/Point'}, {required: [x]}]}", #"{"x": 2}"#, true),
            ("{allOf: [{type: object, required: [x]}, {type: object, required: [y]}]}", #"{"x": 1}"#, false),
            ("{type: string, format: date-time}", #""2026-06-15T08:00:10.000Z""#, true),
            ("{type: string, format: date-time}", #""2026-06-15T10:00:10+02:00""#, true),
            ("{type: string, format: date-time}", #""2026-06-15 08:00:10Z""#, false),
            ("{type: string, format: date-time}", #""2026-02-30T08:00:10Z""#, false),
            ("{type: string, format: date-time}", #""2026-06-15T08:00:10""#, false),
            ("{type: integer, format: int64}", "9223372036854775807", true),
            ("{type: integer, format: int64}", "9223372036854775808", false),
            // A keyword the validator does not apply is refused, not skipped.
            ("{type: string, const: a}", #""a""#, false),
            ("{type: string, not: {pattern: '^a'}}", #""b""#, true),
            ("{type: string, not: {pattern: '^a'}}", #""ab""#, false),
            ("{type: string, pattern: '^a'}", #""ab""#, true), ("{type: string, pattern: '^a'}", #""ba""#, false),
            ("{type: string, pattern: '^(?!bk:)'}", #""bk:1""#, false),
            ("{type: string, maxLength: 2}", #""abc""#, false),
            ("{anyOf: [{type: string}, {type: integer}]}", "1", true),
            ("{anyOf: [{type: string}, {type: integer}]}", "1.5", false),
            ("{type: object, minProperties: 1}", "{}", false),
            (
                "{type: object, additionalProperties: false, patternProperties: {'^x': {type: string}}}",
                #"{"xa": "b"}"#, true
            ),
            (
                "{type: object, additionalProperties: false, patternProperties: {'^x': {type: string}}}",
                #"{"ya": "b"}"#, false
            ),
            (
                "{type: object, additionalProperties: false, patternProperties: {'^x': {type: string}}}", #"{"xa": 1}"#,
                false
            ),
            ("{type: number, minimum: 0, exclusiveMinimum: true}", "0", false),
            ("{type: number, minimum: 0, exclusiveMinimum: true}", "5e-324", true),
        ])
    func schemaValidator(schema: String, instance: String, valid: Bool) throws {
        let validator = try SchemaValidator(document: OpenAPIContract(yaml: Self.schemaDocument).document)
        let schemaNode = try #require(try Yams.compose(yaml: schema))
        let value = try JSONValue.parse(Array(instance.utf8))
        let problems = validator.problems(value, try OpenAPIContract.json(schemaNode))
        #expect(problems.isEmpty == valid, "\(instance) against \(schema): \(problems)")
    }

    static let error = #"{"error": {"code": "not_found", "message": "no"}}"#
    static let fleet = String(decoding: APIJSON.bytes(FleetSummaryBody(FleetSnapshot())), as: UTF8.self)

    @Test(
        "the exchange check refuses what the served document does not describe, and takes what it does",
        arguments: [
            ("GET", "/healthz", nil, 200, "application/json", #"{"status": "running"}"#, nil, true),
            ("GET", "/healthz", nil, 200, "application/json", #"{"status": "fine"}"#, nil, false),
            ("GET", "/healthz", nil, 200, "text/plain", #"{"status": "running"}"#, nil, false),
            ("GET", "/healthz", nil, 418, "application/json", error, nil, false),
            ("PATCH", "/api/v1/fleet", #"{"warp": 2}"#, 200, "application/json", fleet, nil, true),
            ("PATCH", "/api/v1/fleet", #"{"warp": 0}"#, 200, "application/json", fleet, nil, false),
            ("PATCH", "/api/v1/fleet", #"{"warp": 2}"#, 200, "application/json", "{}", nil, false),
            ("DELETE", "/api/v1/fleet", nil, 405, "application/json", error, "GET, PATCH", true),
            ("DELETE", "/api/v1/fleet", nil, 405, "application/json", error, "GET", false),
            ("DELETE", "/api/v1/fleet", nil, 200, "application/json", fleet, nil, false),
            ("GET", "/api/v1/fleet", nil, 401, "application/json", #"{"error": {"code": "unauthorized"}}"#, nil, false),
            (
                "GET", "/api/v1/devices?limit=2", nil, 200, "application/json",
                #"{"devices":[],"total":0,"next":null}"#,
                nil, true
            ),
            (
                "GET", "/api/v1/devices?colour=red", nil, 200, "application/json",
                #"{"devices":[],"total":0,"next":null}"#, nil, false
            ),
            (
                "GET", "/api/v1/devices?limit=2000", nil, 200, "application/json",
                #"{"devices":[],"total":0,"next":null}"#, nil, false
            ),
            ("DELETE", "/api/v1/devices/x", nil, 204, "", "", nil, true),
            ("DELETE", "/api/v1/devices/x", nil, 204, "", "gone", nil, false),
            ("GET", "/api/v1/devices/x", nil, 204, "", "", nil, false),
            ("GET", "/api/v1/nothing", nil, 404, "application/json", error, nil, true),
            ("GET", "/api/v1/nothing", nil, 200, "application/json", "{}", nil, false),
            ("GET", "/app.js", nil, 200, "text/javascript", "let x", nil, true),
        ] as [(String, String, String?, Int, String, String, String?, Bool)])
    func exchangeCheck(
        method: String, target: String, body: String?, status: Int, contentType: String, answer: String,
        allow: String?, described: Bool
    ) throws {
        var headers = contentType.isEmpty ? [] : [(name: "Content-Type", value: contentType)]
        if let allow { headers.append(("Allow", allow)) }
        let bytes = Array(answer.utf8)
        let problems = try Self.contract().problems(
            method, target, request: ([("Content-Type", "application/json")], body),
            answer: AdminHarness.Answer(status: status, headers: headers, body: bytes, json: nil))
        #expect(problems.isEmpty == described, "\(problems)")
    }
}
