import Foundation
import Testing

@testable import BeekonDevice

@Suite("Upload payload")
struct UploadPayloadTests {
    /// The example envelope of seed 05, without its white space.
    static let seedExample = """
        {"schema_version":1,"batch_id":"0190d4e2-7b1a-7c3e-9f10-2a4b6c8d0e1f",\
        "session_id":"0190d4e0-1234-7000-8000-aabbccddeeff","sent_at":"2026-06-15T12:34:56.789Z",\
        "device":{"install_id":"0190c1a4-aaaa-7bbb-8ccc-ddddeeeeffff","platform":"ios",\
        "sdk_version":"0.1.1","model":"iPhone15,3"},\
        "extras":{"user_id":"app-user-123","trip":"morning-commute"},\
        "locations":[{"id":"0190d4e2-7b1a-7c3e-9f10-2a4b6c8d0e20","timestamp":"2026-06-15T12:34:10.000Z",\
        "trigger":"interval","motion":"moving","is_mock":false,"latitude":37.7749,"longitude":-122.4194,\
        "accuracy":5.2,"speed":2.5,"bearing":180,"altitude":14.3,"activity":"walking"}],\
        "geofence_events":[{"id":"0190d4e2-7b1a-7c3e-9f10-2a4b6c8d0e21","geofence_id":"home",\
        "type":"exit","timestamp":"2026-06-15T12:34:05.000Z"}]}
        """

    static let device = DeviceIdentity(
        installID: "0190c1a4-aaaa-7bbb-8ccc-ddddeeeeffff", platform: .ios, sdkVersion: "0.1.1",
        model: "iPhone15,3")

    static func fix(
        accuracy: Double? = 5.2, speed: Double? = 2.5, bearing: Double? = 180,
        altitude: Double? = 14.3, activity: Activity? = .walking, quality: Quality? = nil
    ) -> Location {
        Location(
            id: UUIDv7("0190d4e2-7b1a-7c3e-9f10-2a4b6c8d0e20")!, latitude: 37.7749,
            longitude: -122.4194, timestamp: 1_781_526_850_000, accuracy: accuracy, speed: speed,
            bearing: bearing, altitude: altitude, quality: quality, trigger: .interval,
            motion: .moving, activity: activity, isMock: false)!
    }

    static func payload(
        locations: [Location] = [fix()], extras: StringMap = [:], device: DeviceIdentity = device,
        geofenceEvents: [GeofenceEvent] = []
    ) -> UploadPayload {
        UploadPayload(
            batchID: UUIDv7("0190d4e2-7b1a-7c3e-9f10-2a4b6c8d0e1f")!,
            sessionID: "0190d4e0-1234-7000-8000-aabbccddeeff", sentAt: 1_781_526_896_789,
            device: device, extras: extras, locations: locations, geofenceEvents: geofenceEvents)
    }

    static func text(_ payload: UploadPayload) -> String {
        String(decoding: payload.encoded(), as: UTF8.self)
    }

    static func object(_ payload: UploadPayload) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(payload.encoded())) as? [String: Any])
    }

    /// A location as a server would decode it, for exact number comparisons (JSONDecoder parses
    /// doubles exactly; JSONSerialization's NSNumber bridging on Linux does not always).
    struct WireLocation: Decodable {
        let id: String
        let timestamp: String
        let latitude: Double
        let longitude: Double
        let accuracy: Double?
        let speed: Double?
    }

    struct WireEnvelope: Decodable {
        let locations: [WireLocation]
    }

    static func decoded(_ payload: UploadPayload) throws -> [WireLocation] {
        try JSONDecoder().decode(WireEnvelope.self, from: Data(payload.encoded())).locations
    }

    static func firstLocation(_ payload: UploadPayload) throws -> [String: Any] {
        let locations = try #require(try object(payload)["locations"] as? [[String: Any]])
        return try #require(locations.first)
    }

    @Test("the seed 05 example envelope is reproduced byte for byte from equivalent inputs")
    func seedExample() {
        let payload = Self.payload(
            extras: ["user_id": "app-user-123", "trip": "morning-commute"],
            geofenceEvents: [
                GeofenceEvent(
                    id: UUIDv7("0190d4e2-7b1a-7c3e-9f10-2a4b6c8d0e21")!, geofenceID: "home",
                    type: .exit, timestamp: 1_781_526_845_000)
            ])
        #expect(Self.text(payload) == Self.seedExample)
    }

    @Test("an integral number has no decimal point: 180, never 180.0")
    func integralNumbers() {
        let text = Self.text(Self.payload(locations: [Self.fix(bearing: 180, altitude: -3)]))
        #expect(text.contains(#""bearing":180,"#))
        #expect(text.contains(#""altitude":-3,"#))
        #expect(!text.contains("180.0"))
    }

    @Test(
        "a fractional number keeps its shortest round-trip form: 5.2 stays 5.2",
        arguments: [
            5.2, 0.1, 37.7749, 1e-7, 123.456789012345, 0.30000000000000004,
        ])
    func fractionalNumbers(value: Double) throws {
        let payload = Self.payload(locations: [Self.fix(accuracy: value)])
        #expect(Self.text(payload).contains(#""accuracy":\#(value.description),"#))
        #expect(try Self.decoded(payload).first?.accuracy == value)
    }

    @Test("an absent accuracy, speed, bearing or altitude is omitted, never null")
    func absentMeasuresOmitted() throws {
        let payload = Self.payload(locations: [Self.fix(accuracy: nil, speed: nil, bearing: nil, altitude: nil)])
        let text = Self.text(payload)
        #expect(!text.contains("null"))
        let location = try Self.firstLocation(payload)
        for field in ["accuracy", "speed", "bearing", "altitude"] {
            #expect(location[field] == nil)
        }
        #expect(location["latitude"] as? Double == 37.7749)
    }

    @Test("a zero measure is written as 0, not omitted")
    func zeroMeasureKept() throws {
        let location = try Self.firstLocation(
            Self.payload(locations: [Self.fix(accuracy: 0, speed: 0, bearing: 0, altitude: 0)]))
        for field in ["accuracy", "speed", "bearing", "altitude"] {
            #expect(location[field] as? Double == 0)
        }
    }

    @Test("activity is omitted when detection is off; quality is omitted when the fix is good")
    func optionalMetadataOmitted() throws {
        let plain = try Self.firstLocation(Self.payload(locations: [Self.fix(activity: nil, quality: nil)]))
        #expect(plain["activity"] == nil)
        #expect(plain["quality"] == nil)
        let flagged = try Self.firstLocation(
            Self.payload(locations: [Self.fix(activity: .automotive, quality: .implausibleSpeed)]))
        #expect(flagged["activity"] as? String == "automotive")
        #expect(flagged["quality"] as? String == "implausible_speed")
    }

    @Test("a row with a non-finite latitude or longitude is dropped; the rest still arrive")
    func nonFiniteRowDropped() throws {
        let good = Self.fix()
        let bad = Location(
            unvalidatedID: UUIDv7("0190d4e2-7b1a-7c3e-9f10-2a4b6c8d0e22")!, latitude: .nan,
            longitude: 1, timestamp: 0, accuracy: nil, speed: nil, bearing: nil, altitude: nil,
            quality: nil, trigger: .interval, motion: .unknown, activity: nil, isMock: false)
        let infinite = Location(
            unvalidatedID: UUIDv7("0190d4e2-7b1a-7c3e-9f10-2a4b6c8d0e23")!, latitude: 1,
            longitude: .infinity, timestamp: 0, accuracy: nil, speed: nil, bearing: nil,
            altitude: nil, quality: nil, trigger: .interval, motion: .unknown, activity: nil,
            isMock: false)
        let payload = Self.payload(locations: [bad, good, infinite])
        let locations = try #require(try Self.object(payload)["locations"] as? [[String: Any]])
        #expect(locations.count == 1)
        #expect(locations.first?["id"] as? String == good.id.text)
        #expect(Self.text(payload) == Self.text(Self.payload(locations: [good])))
    }

    @Test("empty extras are omitted; empty locations and geofence_events are always present")
    func emptyCollections() throws {
        let payload = Self.payload(locations: [], extras: [:])
        let object = try Self.object(payload)
        #expect(object["extras"] == nil)
        #expect((object["locations"] as? [Any])?.isEmpty == true)
        #expect((object["geofence_events"] as? [Any])?.isEmpty == true)
        #expect(object["schema_version"] as? Int == 1)
    }

    @Test("blank device fields are omitted")
    func blankDeviceFields() throws {
        let payload = Self.payload(device: DeviceIdentity(installID: "", platform: nil, sdkVersion: "", model: ""))
        #expect(Self.text(payload).contains(#""device":{},"#))
        let android = Self.payload(
            device: DeviceIdentity(installID: "x", platform: .android, sdkVersion: "0.1.1", model: ""))
        let device = try #require(try Self.object(android)["device"] as? [String: String])
        #expect(device == ["install_id": "x", "platform": "android", "sdk_version": "0.1.1"])
    }

    @Test("quotes, backslashes, control characters and non-ASCII in extras are escaped as RFC 8259 requires")
    func stringEscaping() throws {
        let tricky = "say \"hi\"\\ \n\t\r\u{08}\u{0C}\u{01}\u{1F} café 北京 🚲 \u{7F}/"
        let payload = Self.payload(extras: [tricky: tricky, "plain": "x"])
        let text = Self.text(payload)
        #expect(text.contains(#"say \"hi\"\\ \n\t\r\b\f\u0001\u001f café 北京 🚲 \#u{7F}/"#))
        let extras = try #require(try Self.object(payload)["extras"] as? [String: String])
        #expect(extras[tricky] == tricky)
        #expect(extras["plain"] == "x")
    }

    @Test("extras keep the order the app gave them, and the same input gives the same bytes")
    func deterministic() {
        let forward = Self.payload(extras: ["b": "1", "a": "2", "c": "3"])
        #expect(Self.text(forward).contains(#""extras":{"b":"1","a":"2","c":"3"}"#))
        #expect(forward.encoded() == forward.encoded())
        #expect(Self.payload(extras: ["b": "1", "a": "2", "c": "3"]).encoded() == forward.encoded())
    }

    @Test(
        "the bytes of a realistic 100-fix batch parse, and every number reads back exactly",
        arguments: [1, 7, 2026] as [UInt64])
    func parses(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        var ids = UUIDv7Generator()
        var fixes: [Location] = []
        for index in 0..<100 {
            let millis = 1_750_000_000_000 + Int64(index) * 5000
            fixes.append(
                Location(
                    id: ids.next(atUnixMillis: millis, using: &rng),
                    latitude: 48.85 + Double.random(in: -0.01...0.01, using: &rng),
                    longitude: 2.35 + Double.random(in: -0.01...0.01, using: &rng), timestamp: millis,
                    accuracy: Double.random(in: 3...65, using: &rng),
                    speed: index % 3 == 0 ? nil : Double.random(in: 0...15, using: &rng),
                    bearing: Double(index * 7 % 360), altitude: index % 2 == 0 ? 35 : nil,
                    trigger: index == 0 ? .motion : .interval, motion: .moving)!)
        }
        let payload = Self.payload(locations: fixes, extras: ["user_id": "u-\(seed)"])
        let object = try Self.object(payload)
        #expect((object["locations"] as? [[String: Any]])?.count == 100)
        let locations = try Self.decoded(payload)
        #expect(locations.count == 100)
        for (written, fix) in zip(locations, fixes) {
            #expect(written.id == fix.id.text)
            #expect(written.latitude == fix.latitude)
            #expect(written.longitude == fix.longitude)
            #expect(written.accuracy == fix.accuracy)
            #expect(written.speed == fix.speed)
            #expect(written.timestamp == Timestamp.text(unixMillis: fix.timestamp))
        }
    }
}
