import FleetEngine
import FleetTestSupport
import Testing

@testable import FleetAdmin
@testable import FleetReport

/// The admin API's bodies are `Codable` types, and their schemas in the document are generated
/// from them: what a body encodes and what the document says of it cannot part.
@Suite("Codable bodies and their generated schemas")
struct APIBodyTests {
    @Test("one body type is written camelCase for the API and snake_case for the report, map keys as they are")
    func keyStyleIsTheEncoders() {
        let snapshot = FleetHealthExample.snapshot()
        let health = FleetHealthBody(snapshot.metrics)
        #expect(
            APIJSON.text(health).hasPrefix(
                #"{"notSent":{"connection-cap":3,"descriptors":0,"source-address":0},"heldBack":7,"#))
        #expect(
            APIJSON.text(health, keys: .snakeCase).hasPrefix(
                #"{"not_sent":{"connection-cap":3,"descriptors":0,"source-address":0},"held_back":7,"#
                    + #""connection_wait_ms":{"p50":"#))
        let report = APIJSON.text(RunReportBody(snapshot))
        #expect(report.contains(#""fleet_health":"# + APIJSON.text(StatsBody(snapshot).fleetHealth, keys: .snakeCase)))
        let ledger = FixesBody.Ledger(snapshot.metrics.fixes)
        #expect(report.contains(#""fixes":"# + APIJSON.text(ledger, keys: .snakeCase)))
        #expect(APIJSON.text(FixesBody(snapshot.metrics.fixes)).hasPrefix(#"{"carriedOver":0,"admitted":0,"#))
    }

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
                APIJSON.text(
                    DevicesEventBody(
                        changes: [.init(id: "a", state: "dead", pending: 2, lastOutcome: nil)], truncated: .absent)),
                #"{"changes":[{"id":"a","state":"dead","pending":2,"lastOutcome":null}]}"#
            ),
            (
                APIJSON.text(DevicesEventBody(changes: [], truncated: .present(true))),
                #"{"changes":[],"truncated":true}"#
            ),
            (
                APIJSON.text(
                    UploadsEventBody(
                        byOutcome: APIMap(sorting: ["b": 1, "a": 2, "c": 3]), latencyMs: .init(p50: 1.5, p95: 2, p99: 3)
                    )),
                #"{"byOutcome":{"a":2,"b":1,"c":3},"latencyMs":{"p50":1.5,"p95":2,"p99":3}}"#
            ),
            (
                APIJSON.text(ErrorBody(error: .init(code: .unknownField, message: "m", field: Omittable("params.ms")))),
                #"{"error":{"code":"unknown_field","message":"m","field":"params.ms"}}"#
            ),
            (
                APIJSON.text(ActionEventBody(action: .latency, applied: 3, at: APITime(0))),
                #"{"action":"latency","applied":3,"at":"1970-01-01T00:00:00.000Z"}"#
            ),
        ])
    func encodes(encoded: String, expected: String) {
        #expect(encoded == expected)
    }

    @Test("a device's detail is one object: the summary's members, then the detail's")
    func detailMergesSummary() throws {
        let text = APIJSON.text(DeviceDetailBody.example)
        let value = try JSONValue.parse(Array(text.utf8))
        guard case .object(let members) = value else {
            Issue.record("not an object: \(text)")
            return
        }
        #expect(members.first?.key == "id")
        #expect(members.last?.key == "currentLocation")
        #expect(members.count == 29, "\(members.map(\.key))")
    }
}

/// Request bodies are `Decodable` types read by `BodyDecoder`, whose refusals name the field; their
/// schemas are derived from the members their `init(from:)` asks for.
@Suite("Decodable request bodies and their generated schemas")
struct APIRequestTests {
    static func refusal(_ read: () throws -> Void) -> APIError? {
        do {
            try read()
            return nil
        } catch {
            return error as? APIError
        }
    }

    @Test(
        "a body is refused naming the field at fault, its code and what was expected",
        arguments: [
            (#"[]"#, APIError.Code.badType, nil, "the body must be a JSON object, not an array"),
            (#"{"warp": "fast"}"#, .badType, "warp", #"`warp` must be a number from 0.01 to 10000 or "max""#),
            (#"{"warp": 5, "colour": 1}"#, .unknownField, "colour", "expected one of devices, paused, warp"),
            (#"{"paused": 1}"#, .badType, "paused", "`paused` must be true or false, not a number"),
            (#"{"warp": 1e300}"#, .badRequest, "warp", "out of range"),
        ])
    func patchRefusals(body: String, code: APIError.Code, field: String?, message: String) throws {
        let error = try #require(Self.refusal { _ = try FleetPatchRequest.read(Array(body.utf8)) })
        #expect(error.code == code && error.field == field, "\(error)")
        #expect(error.message.contains(message), "\(error.message)")
    }

    @Test(
        "a selector is refused naming its field inside `selector`",
        arguments: [
            (#"{"ids": ["a", 1]}"#, "selector.ids[1]", "must be a string, not a number"),
            (#"{"fraction": 0.5, "seed": 1.5}"#, "selector.seed", "whole number"),
            (#"{"fraction": 2}"#, "selector.fraction", "out of range"),
            (#"{"group": "a", "colour": "red"}"#, "selector.colour", "expected one of"),
            (#"{"all": false}"#, "selector.all", "`all` must be true"),
            (#"{"group": "a", "all": true}"#, "selector", "exactly one of"),
            (#"{"seed": 3, "group": "a"}"#, "selector.seed", "goes with `fraction` only"),
        ])
    func selectorRefusals(body: String, field: String, message: String) throws {
        let error = try #require(
            Self.refusal {
                let value = try JSONValue.parse(Array(body.utf8))
                _ = try BodyDecoder.object(SelectorRequest.self, from: value, path: "selector.").selector()
            })
        #expect(error.field == field, "\(error)")
        #expect(error.message.contains(message), "\(error.message)")
    }

    @Test("null is as absent, and a body reads into its fields")
    func reads() throws {
        let patch = try FleetPatchRequest.read(Array(#"{"warp": "max", "paused": null}"#.utf8))
        #expect(patch.warp?.warp == .max && patch.paused == nil)
        let spawn = try AdminRequests.spawn(Array(#"{"group": "walkers", "count": 3, "ratePerSecond": 0.5}"#.utf8))
        #expect(spawn.count == 3 && spawn.ratePerSecond == 0.5)
        let (_, selector) = try AdminRequests.fleetAction(
            Array(#"{"action": "sync", "selector": {"fraction": 0.25, "seed": 7}}"#.utf8))
        guard case .fraction(0.25, seed: 7) = selector else {
            Issue.record("\(selector)")
            return
        }
    }

    @Test(
        "the generated request schemas take what the fleet takes and refuse the shapes it refuses",
        arguments: [
            ("FleetPatch", #"{"warp": "max"}"#, true), ("FleetPatch", #"{"warp": 0.001}"#, false),
            ("FleetPatch", #"{"speed": 1}"#, false), ("FleetPatch", #"{}"#, true),
            ("SpawnRequest", #"{"group": "g", "count": 2}"#, true), ("SpawnRequest", #"{"group": "g"}"#, false),
            ("SpawnRequest", #"{"spec": {"name": "n", "count": 1, "route": "r.gpx"}, "ratePerSecond": 1}"#, true),
            ("SpawnRequest", #"{"spec": {"name": "n", "count": 1}}"#, false),
            ("SpawnRequest", #"{"spec": {"name": "", "count": 1, "route": "r.gpx"}}"#, false),
            ("SpawnRequest", #"{"spec": {"name": "n", "count": 1, "route": "r.gpx", "colour": "red"}}"#, false),
            ("SpawnRequest", #"{"spec": {"name": "n", "count": 1, "route": "r.gpx", "platform": {"ios": 0}}}"#, false),
            ("SpawnRequest", #"{"group": null, "count": 2}"#, false),
            ("GroupSpec", #"{"name": "n", "count": 1, "route": "r.gpx", "network": "3g"}"#, true),
            ("GroupSpec", #"{"name": "n", "count": 1, "route": "r.gpx", "network": "5g"}"#, false),
            (
                "GroupSpec",
                #"{"name": "n", "count": 1, "route": "r.gpx", "#
                    + #""network": {"profile": "lte", "latency": {"median": 60, "tail": 190}, "loss": 0.01}}"#, true
            ),
            ("GroupSpec", #"{"name": "n", "count": 1, "route": "r.gpx", "network": {"loss": 0.6}}"#, false),
            ("GroupSpec", #"{"name": "n", "count": 1, "route": "r.gpx", "network": {"uplinkKbps": 0}}"#, false),
            ("GroupSpec", #"{"name": "n", "count": 1, "route": "r.gpx", "network": {"latency": {"mean": 5}}}"#, false),
            (
                "GroupSpec",
                #"{"name": "n", "count": 1, "route": "r.gpx", "deviceClock": "#
                    + #"{"offset": "-5m", "spread": 120, "driftPpm": 50, "ntp": {"every": "6h"}}}"#, true
            ),
            ("GroupSpec", #"{"name": "n", "count": 1, "route": "r.gpx", "deviceClock": {"offset": -604800}}"#, true),
            ("GroupSpec", #"{"name": "n", "count": 1, "route": "r.gpx", "deviceClock": {"offset": "8d"}}"#, false),
            ("GroupSpec", #"{"name": "n", "count": 1, "route": "r.gpx", "deviceClock": {"spread": "-1m"}}"#, false),
            ("GroupSpec", #"{"name": "n", "count": 1, "route": "r.gpx", "deviceClock": {"driftPpm": 501}}"#, false),
            (
                "GroupSpec", #"{"name": "n", "count": 1, "route": "r.gpx", "deviceClock": {"ntp": {"every": "30s"}}}"#,
                false
            ),
            ("GroupSpec", #"{"name": "n", "count": 1, "route": "r.gpx", "deviceClock": {"ntp": {}}}"#, false),
            (
                "GroupSpec",
                #"{"name": "n", "count": 1, "route": "r.gpx", "arrivals": {"perHour": 120, "until": "6h"}}"#, true
            ),
            ("GroupSpec", #"{"name": "n", "count": 1, "route": "r.gpx", "arrivals": {"perHour": 100001}}"#, false),
            ("GroupSpec", #"{"name": "n", "count": 1, "route": "r.gpx", "arrivals": {"until": "1h"}}"#, false),
            (
                "GroupSpec",
                #"{"name": "n", "count": 1, "route": "r.gpx", "daily": {"utcOffset": "+01:00", "hours": "#
                    + #"[0.5,0.5,0.5,0.5,0.5,0.5,0.5,0.5,0.5,0.5,0.5,0.5,0,0,0,0,0,0,0,0,0,0,0,1]}}"#, true
            ),
            (
                "GroupSpec",
                #"{"name": "n", "count": 1, "route": "r.gpx", "daily": {"utcOffset": "+14:30", "hours": "#
                    + #"[0.5,0.5,0.5,0.5,0.5,0.5,0.5,0.5,0.5,0.5,0.5,0.5,0,0,0,0,0,0,0,0,0,0,0,1]}}"#, false
            ),
            ("GroupSpec", #"{"name": "n", "count": 1, "route": "r.gpx", "daily": {"hours": [0.5, 1]}}"#, false),
            ("Selector", #"{"all": true}"#, true), ("Selector", #"{"all": false}"#, false),
            ("Selector", #"{"fraction": 0.5, "seed": 3}"#, true), ("Selector", #"{"group": "g", "seed": 3}"#, false),
            ("Selector", #"{"ids": []}"#, false), ("Selector", #"{"state": ""}"#, false),
            ("Selector", #"{"ids": ["a", ""]}"#, false),
            (
                "Geofence",
                #"{"id": "bk:1", "latitude": 0, "#
                    + #""longitude": 0, "radius": 5}"#, false
            ),
            ("Geofence", #"{"id": "depot", "latitude": 0, "longitude": 0, "radius": 5, "x": 1}"#, false),
            ("InstantBound", #""2026-06-15T08:00:00Z""#, true), ("InstantBound", #"-1"#, false),
        ])
    func schemas(component: String, body: String, valid: Bool) throws {
        let contract = try OpenAPIContract.served.get()
        let value = try JSONValue.parse(Array(body.utf8))
        let problems = contract.schemas.problems(
            value, .object([("$ref", .string("#/components/schemas/\(component)"))]))
        #expect(problems.isEmpty == valid, "\(problems)")
    }
}
