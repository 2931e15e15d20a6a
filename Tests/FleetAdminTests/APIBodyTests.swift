import FleetEngine
import Testing

@testable import FleetAdmin

/// The admin API's bodies are `Codable` types, and their schemas in the document are generated
/// from them: what a body encodes and what the document says of it cannot part.
@Suite("Codable bodies and their generated schemas")
struct APIBodyTests {
    static func text(_ value: some Encodable) -> String { String(decoding: APIJSON.bytes(value), as: UTF8.self) }

    @Test("every body's schema comes from its members' types: none is of a type without a schema")
    func everyMemberDescribed() {
        let undescribed = AdminSchemas.generated.filter { $0.contains(APISchemaRecorder.undescribed) }
        #expect(undescribed.isEmpty, "\(undescribed)")
        #expect(Set(AdminSchemas.bodies.compactMap { $0.component }).count == AdminSchemas.bodies.count)
    }

    @Test(
        "each body's example, encoded, is valid against the schema the served document gives it",
        arguments: AdminSchemas.bodies.indices)
    func exampleMatchesSchema(index: Int) throws {
        let body = AdminSchemas.bodies[index]
        let contract = try OpenAPIContract.served.get()
        let value = try JSONValue.parse(APIJSON.bytes(body.example))
        let schema = JSONValue.object([("$ref", .string("#/components/schemas/\(body.component ?? "?")"))])
        #expect(
            contract.schemas.problems(value, schema).isEmpty, "\(body): \(contract.schemas.problems(value, schema))")
    }

    @Test(
        "a nil member is written as null, an absent Omittable is left out, and a map keeps its keys' order",
        arguments: [
            (
                text(
                    DevicesEventBody(
                        changes: [.init(id: "a", state: "dead", pending: 2, lastOutcome: nil)], truncated: .absent)),
                #"{"changes":[{"id":"a","state":"dead","pending":2,"lastOutcome":null}]}"#
            ),
            (
                text(DevicesEventBody(changes: [], truncated: .present(true))),
                #"{"changes":[],"truncated":true}"#
            ),
            (
                text(
                    UploadsEventBody(
                        byOutcome: APIMap(sorting: ["b": 1, "a": 2, "c": 3]), latencyMs: .init(p50: 1.5, p95: 2, p99: 3)
                    )),
                #"{"byOutcome":{"a":2,"b":1,"c":3},"latencyMs":{"p50":1.5,"p95":2,"p99":3}}"#
            ),
            (
                text(ErrorBody(error: .init(code: .unknownField, message: "m", field: Omittable("params.ms")))),
                #"{"error":{"code":"unknown_field","message":"m","field":"params.ms"}}"#
            ),
            (
                text(ActionEventBody(action: .latency, applied: 3, at: APITime(0))),
                #"{"action":"latency","applied":3,"at":"1970-01-01T00:00:00.000Z"}"#
            ),
        ])
    func encodes(encoded: String, expected: String) {
        #expect(encoded == expected)
    }

    @Test("a device's detail is one object: the summary's members, then the detail's")
    func detailMergesSummary() throws {
        let text = Self.text(DeviceDetailBody.example)
        let value = try JSONValue.parse(Array(text.utf8))
        guard case .object(let members) = value else {
            Issue.record("not an object: \(text)")
            return
        }
        #expect(members.first?.key == "id")
        #expect(members.last?.key == "streams")
        #expect(members.count == 22, "\(members.map(\.key))")
    }
}
