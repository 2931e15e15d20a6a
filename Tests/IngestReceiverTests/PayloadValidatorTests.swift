import FleetTestSupport
import Foundation
import Testing

@testable import IngestReceiver

/// One crafted break of seed 05's example and the field the refusal must name.
struct Mutation: Sendable, CustomTestStringConvertible {
    var field: String
    var from: String
    var to: String

    var testDescription: String { "\(field): \(to.prefix(60))" }

    /// The example with the break applied (the `from` text must be in it).
    var body: String {
        precondition(seedExample.contains(from), "\(from) is not in the example")
        return seedExample.replacingOccurrences(of: from, with: to)
    }

    static let location =
        #"{ "id": "0190d4e2-7b1a-7c3e-9f10-2a4b6c8d0e20", "timestamp": "2026-06-15T12:34:10.000Z", "#
        + #""trigger": "interval", "motion": "moving", "is_mock": false, "latitude": 37.7749, "#
        + #""longitude": -122.4194, "accuracy": 5.2, "speed": 2.5, "bearing": 180, "altitude": 14.3, "#
        + #""activity": "walking" }"#
    static let event =
        #"{ "id": "0190d4e2-7b1a-7c3e-9f10-2a4b6c8d0e21", "geofence_id": "home", "type": "exit", "#
        + #""timestamp": "2026-06-15T12:34:05.000Z" }"#

    static let all: [Mutation] = [
        // Root fields.
        Mutation(field: "schema_version", from: #""schema_version": 1,"#, to: #""schema_version": 2,"#),
        Mutation(field: "schema_version", from: #""schema_version": 1,"#, to: #""schema_version": "1","#),
        Mutation(field: "schema_version", from: #""schema_version": 1,"#, to: #""schema_version": 1.0,"#),
        Mutation(field: "schema_version", from: #""schema_version": 1,"#, to: ""),
        Mutation(
            field: "batch_id", from: #""batch_id": "0190d4e2-7b1a-7c3e-9f10-2a4b6c8d0e1f""#,
            to: #""batch_id": "batch-1""#),
        Mutation(
            field: "batch_id", from: #""batch_id": "0190d4e2-7b1a-7c3e-9f10-2a4b6c8d0e1f""#,
            to: #""batch_id": "0190D4E2-7B1A-7C3E-9F10-2A4B6C8D0E1F""#),
        Mutation(
            field: "batch_id", from: #""batch_id": "0190d4e2-7b1a-7c3e-9f10-2a4b6c8d0e1f""#,
            to: #""batch_id": "0190d4e2-7b1a-4c3e-9f10-2a4b6c8d0e1f""#),
        Mutation(
            field: "batch_id", from: #""batch_id": "0190d4e2-7b1a-7c3e-9f10-2a4b6c8d0e1f""#, to: #""batch_id": null"#),
        Mutation(field: "batch_id", from: #""batch_id": "0190d4e2-7b1a-7c3e-9f10-2a4b6c8d0e1f","#, to: ""),
        Mutation(
            field: "session_id", from: #""session_id": "0190d4e0-1234-7000-8000-aabbccddeeff""#,
            to: #""session_id": 42"#),
        Mutation(
            field: "session_id", from: #""session_id": "0190d4e0-1234-7000-8000-aabbccddeeff""#,
            to: #""session_id": "trip-1""#),
        Mutation(field: "session_id", from: #""session_id": "0190d4e0-1234-7000-8000-aabbccddeeff","#, to: ""),
        Mutation(
            field: "sent_at", from: #""sent_at": "2026-06-15T12:34:56.789Z""#, to: #""sent_at": "2026-06-15T12:34:56Z""#
        ),
        Mutation(
            field: "sent_at", from: #""sent_at": "2026-06-15T12:34:56.789Z""#,
            to: #""sent_at": "2026-02-30T12:34:56.789Z""#),
        Mutation(
            field: "sent_at", from: #""sent_at": "2026-06-15T12:34:56.789Z""#,
            to: #""sent_at": "2026-06-15T12:34:56.789+00:00""#),
        Mutation(field: "sent_at", from: #""sent_at": "2026-06-15T12:34:56.789Z","#, to: ""),
        // device.
        Mutation(field: "device", from: #""device": {"#, to: #""device": "ios", "x": {"#),
        Mutation(
            field: "device.install_id", from: #""install_id": "0190c1a4-aaaa-7bbb-8ccc-ddddeeeeffff""#,
            to: #""install_id": "phone-1""#),
        Mutation(field: "device.install_id", from: #""install_id": "0190c1a4-aaaa-7bbb-8ccc-ddddeeeeffff","#, to: ""),
        Mutation(field: "device.platform", from: #""platform": "ios""#, to: #""platform": "windows""#),
        Mutation(field: "device.platform", from: #""platform": "ios""#, to: #""platform": "iOS""#),
        Mutation(field: "device.sdk_version", from: #""sdk_version": "0.1.1""#, to: #""sdk_version": """#),
        Mutation(field: "device.sdk_version", from: #""sdk_version": "0.1.1","#, to: ""),
        Mutation(field: "device.model", from: #""model": "iPhone15,3""#, to: #""model": """#),
        Mutation(field: "device.model", from: #""model": "iPhone15,3""#, to: #""model": null"#),
        // extras.
        Mutation(field: "extras", from: #"{ "user_id": "app-user-123", "trip": "morning-commute" }"#, to: "{}"),
        Mutation(field: "extras", from: #"{ "user_id": "app-user-123", "trip": "morning-commute" }"#, to: #""trip""#),
        Mutation(field: "extras.trip", from: #""trip": "morning-commute""#, to: #""trip": 7"#),
        // locations[].
        Mutation(field: "locations", from: #""locations": ["#, to: #""locations": 3, "x": ["#),
        Mutation(field: "locations", from: #""locations": [ "#, to: #""x": [ "#),
        Mutation(field: "locations[0]", from: location, to: "7"),
        Mutation(
            field: "locations[0].id", from: #""id": "0190d4e2-7b1a-7c3e-9f10-2a4b6c8d0e20""#, to: #""id": "fix-1""#),
        Mutation(field: "locations[1].id", from: location, to: location + ", " + location),
        Mutation(
            field: "locations[0].timestamp", from: #""timestamp": "2026-06-15T12:34:10.000Z""#,
            to: #""timestamp": 1781526850000"#),
        Mutation(
            field: "locations[0].timestamp", from: #""timestamp": "2026-06-15T12:34:10.000Z""#,
            to: #""timestamp": "2026-06-15T12:34:10.00Z""#),
        Mutation(field: "locations[0].trigger", from: #""trigger": "interval""#, to: #""trigger": "Interval""#),
        Mutation(field: "locations[0].trigger", from: #""trigger": "interval""#, to: #""trigger": "checkIn""#),
        Mutation(field: "locations[0].trigger", from: #""trigger": "interval", "#, to: ""),
        Mutation(field: "locations[0].motion", from: #""motion": "moving""#, to: #""motion": "walking""#),
        Mutation(field: "locations[0].is_mock", from: #""is_mock": false"#, to: #""is_mock": 0"#),
        Mutation(field: "locations[0].is_mock", from: #""is_mock": false"#, to: #""is_mock": "false""#),
        Mutation(field: "locations[0].is_mock", from: #""is_mock": false, "#, to: ""),
        Mutation(field: "locations[0].latitude", from: #""latitude": 37.7749"#, to: #""latitude": 91"#),
        Mutation(field: "locations[0].latitude", from: #""latitude": 37.7749"#, to: #""latitude": "37.7749""#),
        Mutation(field: "locations[0].latitude", from: #""latitude": 37.7749"#, to: #""latitude": null"#),
        Mutation(field: "locations[0].latitude", from: #""latitude": 37.7749, "#, to: ""),
        Mutation(field: "locations[0].longitude", from: #""longitude": -122.4194"#, to: #""longitude": -180.5"#),
        Mutation(field: "locations[0].longitude", from: #""longitude": -122.4194"#, to: #""longitude": true"#),
        Mutation(field: "locations[0].accuracy", from: #""accuracy": 5.2"#, to: #""accuracy": -1"#),
        Mutation(field: "locations[0].accuracy", from: #""accuracy": 5.2"#, to: #""accuracy": null"#),
        Mutation(field: "locations[0].speed", from: #""speed": 2.5"#, to: #""speed": -0.5"#),
        Mutation(field: "locations[0].bearing", from: #""bearing": 180"#, to: #""bearing": 360"#),
        Mutation(field: "locations[0].bearing", from: #""bearing": 180"#, to: #""bearing": 180.0"#),
        Mutation(field: "locations[0].altitude", from: #""altitude": 14.3"#, to: #""altitude": "high""#),
        Mutation(field: "locations[0].activity", from: #""activity": "walking""#, to: #""activity": "flying""#),
        Mutation(field: "locations[0].activity", from: #""activity": "walking""#, to: #""activity": null"#),
        Mutation(
            field: "locations[0].quality", from: #""activity": "walking""#,
            to: #""activity": "walking", "quality": "bad""#),
        // geofence_events[].
        Mutation(field: "geofence_events", from: #", "geofence_events": [ "#, to: #", "x": [ "#),
        Mutation(field: "geofence_events", from: #""geofence_events": ["#, to: #""geofence_events": {}, "x": ["#),
        Mutation(
            field: "geofence_events[0].id", from: #""id": "0190d4e2-7b1a-7c3e-9f10-2a4b6c8d0e21""#, to: #""id": """#),
        Mutation(field: "geofence_events[1].id", from: event, to: event + ", " + event),
        Mutation(field: "geofence_events[0].geofence_id", from: #""geofence_id": "home""#, to: #""geofence_id": """#),
        Mutation(field: "geofence_events[0].geofence_id", from: #""geofence_id": "home""#, to: #""geofence_id": 7"#),
        Mutation(field: "geofence_events[0].type", from: #""type": "exit""#, to: #""type": "dwell""#),
        Mutation(
            field: "geofence_events[0].timestamp", from: #""timestamp": "2026-06-15T12:34:05.000Z""#,
            to: #""timestamp": "yesterday""#),
        // The body itself.
        Mutation(field: "body", from: seedExample, to: "[]"),
        Mutation(field: "body", from: seedExample, to: #"{"schema_version": 1,"#),
    ]
}

/// Seed 05's payload rules, checked without a server.
@Suite("Payload validator")
struct PayloadValidatorTests {
    let validator = PayloadValidator(maxDepth: 32, maxElements: 100_000)

    @Test("seed 05's example payload is accepted as printed")
    func seedExampleAccepted() throws {
        let batch = try validator.validate(Array(seedExample.utf8))
        #expect(batch.batchID == "0190d4e2-7b1a-7c3e-9f10-2a4b6c8d0e1f")
        #expect(batch.installID == "0190c1a4-aaaa-7bbb-8ccc-ddddeeeeffff")
        #expect(batch.model == "iPhone15,3")
        #expect(batch.extrasJSON == #"{"trip":"morning-commute","user_id":"app-user-123"}"#)
        #expect(batch.locations.count == 1)
        #expect(batch.locations.first?.bearing == 180)
        #expect(batch.locations.first?.activity == "walking")
        #expect(batch.locations.first?.quality == nil)
        #expect(batch.geofenceEvents.first?.type == "exit")
    }

    @Test("optional fields may be omitted, unknown fields are ignored, an empty session is allowed")
    func optionalsAndAdditions() throws {
        var text = seedExample.replacingOccurrences(
            of: #", "accuracy": 5.2, "speed": 2.5, "bearing": 180, "altitude": 14.3, "activity": "walking""#, with: "")
        text = text.replacingOccurrences(of: #", "model": "iPhone15,3""#, with: "")
        text = text.replacingOccurrences(
            of: #""extras": { "user_id": "app-user-123", "trip": "morning-commute" },"#, with: "")
        text = text.replacingOccurrences(
            of: #""session_id": "0190d4e0-1234-7000-8000-aabbccddeeff""#, with: #""session_id": """#)
        text = text.replacingOccurrences(
            of: #""schema_version": 1,"#, with: #""schema_version": 1, "future_field": {"a": [1]},"#)
        let batch = try validator.validate(Array(text.utf8))
        #expect(batch.locations.first?.accuracy == nil)
        #expect(batch.model == nil)
        #expect(batch.extrasJSON == nil)
        #expect(batch.sessionID == "")
    }

    @Test("each broken rule is refused with a reason naming the field", arguments: Mutation.all)
    func refused(_ mutation: Mutation) {
        #expect(throws: PayloadProblem.self) { try validator.validate(Array(mutation.body.utf8)) }
        do {
            _ = try validator.validate(Array(mutation.body.utf8))
        } catch {
            #expect(error.field == mutation.field, "\(error)")
        }
    }

    @Test("nesting deeper than the limit is refused as it is passed; brackets in strings do not count")
    func depth() throws {
        let parser = BoundedJSONParser(maxDepth: 3, maxElements: 100)
        _ = try parser.parse(Array(#"{"a":[{"b":"[[[[[["}]}"#.utf8))
        #expect(throws: JSONProblem(offset: 11, reason: "JSON nested deeper than 3 levels (the depth limit)")) {
            try parser.parse(Array(#"{"a":[{"b":[1]}]}"#.utf8))
        }
        let deep = Array(repeating: UInt8(ascii: "["), count: 1_000_000)
        #expect(
            throws: PayloadProblem(
                field: "body", reason: "JSON nested deeper than 32 levels (the depth limit) (at byte 32)")
        ) {
            try validator.validate(deep)
        }
    }
}
