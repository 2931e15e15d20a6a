import BeekonDevice
import Foundation

/// Why a payload is permanently bad: the field (a JSON path like `locations[2].latitude`) and
/// what is wrong with it. Answered 400 with `{"error": "<field>: <reason>"}`.
struct PayloadProblem: Error, Sendable, Hashable, CustomStringConvertible {
    var field: String
    var reason: String

    var description: String { "\(field): \(reason)" }
}

/// Checks an upload body against every rule of seed 05's payload and turns it into an
/// `IngestBatch`. Fields it does not know are ignored (the format only grows by must-ignore
/// additions); fields it knows must have the documented type, shape and range.
struct PayloadValidator {
    /// The deepest nesting accepted; checked before parsing so hostile input cannot recurse deep.
    var maxDepth: Int

    static let triggers: Set<String> = ["interval", "motion", "check_in", "geofence", "manual"]
    static let motions: Set<String> = ["moving", "stationary", "unknown"]
    static let activities: Set<String> = ["stationary", "walking", "running", "cycling", "automotive", "unknown"]
    static let qualities: Set<String> = ["low_accuracy", "implausible_speed"]
    static let platforms: Set<String> = ["android", "ios"]
    static let geofenceTypes: Set<String> = ["enter", "exit"]

    /// The batch in `json` (UTF-8 bytes, already gunzipped), or the first problem found.
    func validate(_ json: [UInt8]) throws(PayloadProblem) -> IngestBatch {
        if let depth = Self.depthBeyond(maxDepth, in: json) {
            throw PayloadProblem(field: "body", reason: "JSON nested deeper than \(maxDepth) levels (at byte \(depth))")
        }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(json))
        } catch {
            throw PayloadProblem(field: "body", reason: "not valid JSON: \(IngestReceiverConfiguration.reason(error))")
        }
        guard let root = object as? [String: Any] else {
            throw PayloadProblem(field: "body", reason: "expected a JSON object at the top level")
        }
        let top = Fields(root, path: "")
        let version = try top.integer("schema_version")
        guard version == 1 else {
            throw PayloadProblem(field: "schema_version", reason: "expected 1, got \(version)")
        }
        let batchID = try top.uuid("batch_id")
        let sessionID = try top.string("session_id")
        if !sessionID.isEmpty { try Fields.checkUUID(sessionID, field: "session_id", orEmpty: true) }
        let sentAt = try top.timestamp("sent_at")
        let device = try top.object("device")
        let installID = try device.uuid("install_id")
        let platform = try device.choice("platform", Self.platforms)
        let sdkVersion = try device.string("sdk_version")
        guard !sdkVersion.isEmpty else { throw device.problem("sdk_version", "must not be empty") }
        let model = try device.optionalString("model")
        if model?.isEmpty == true { throw device.problem("model", "must be omitted when blank, not \"\"") }
        var extrasJSON: String?
        if let extras = try top.optionalObject("extras") {
            guard !extras.members.isEmpty else { throw top.problem("extras", "must be omitted when empty, not {}") }
            var writer = JSONWriter()
            writer.beginObject()
            for key in extras.members.keys.sorted() {
                writer.key(key)
                writer.string(try extras.string(key))
            }
            writer.endObject()
            extrasJSON = String(decoding: writer.bytes, as: UTF8.self)
        }
        var locations: [IngestBatch.Location] = []
        var seen: [String: Int] = [:]
        for (index, item) in try top.array("locations").enumerated() {
            let fields = try Fields.element(item, path: "locations[\(index)]")
            let location = try Self.location(fields)
            if let first = seen.updateValue(index, forKey: location.id) {
                throw fields.problem("id", "duplicates locations[\(first)].id")
            }
            locations.append(location)
        }
        var events: [IngestBatch.GeofenceEvent] = []
        seen = [:]
        for (index, item) in try top.array("geofence_events").enumerated() {
            let fields = try Fields.element(item, path: "geofence_events[\(index)]")
            let geofenceID = try fields.string("geofence_id")
            guard (1...100).contains(geofenceID.count) else { throw fields.problem("geofence_id", "must be 1 to 100 characters") }
            let event = IngestBatch.GeofenceEvent(
                id: try fields.uuid("id"), geofenceID: geofenceID,
                type: try fields.choice("type", Self.geofenceTypes), timestamp: try fields.timestamp("timestamp"))
            if let first = seen.updateValue(index, forKey: event.id) {
                throw fields.problem("id", "duplicates geofence_events[\(first)].id")
            }
            events.append(event)
        }
        return IngestBatch(
            batchID: batchID, sessionID: sessionID, sentAt: sentAt, installID: installID, platform: platform,
            sdkVersion: sdkVersion, model: model, extrasJSON: extrasJSON, locations: locations, geofenceEvents: events)
    }

    private static func location(_ fields: Fields) throws(PayloadProblem) -> IngestBatch.Location {
        IngestBatch.Location(
            id: try fields.uuid("id"), timestamp: try fields.timestamp("timestamp"),
            trigger: try fields.choice("trigger", triggers), motion: try fields.choice("motion", motions),
            isMock: try fields.bool("is_mock"),
            latitude: try fields.number("latitude", in: -90...90, range: "-90...90"),
            longitude: try fields.number("longitude", in: -180...180, range: "-180...180"),
            accuracy: try fields.optionalNumber("accuracy", in: 0...Double.greatestFiniteMagnitude, range: "0 or more"),
            speed: try fields.optionalNumber("speed", in: 0...Double.greatestFiniteMagnitude, range: "0 or more"),
            bearing: try fields.optionalNumber("bearing", in: 0..<360, range: "0 up to 360 (excluded)"),
            altitude: try fields.optionalNumber(
                "altitude", in: -Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude, range: "finite"),
            activity: try fields.optionalChoice("activity", activities),
            quality: try fields.optionalChoice("quality", qualities))
    }

    /// The byte offset where nesting first goes deeper than `limit`, or nil. Brackets inside
    /// strings do not count.
    static func depthBeyond(_ limit: Int, in bytes: [UInt8]) -> Int? {
        var depth = 0
        var inString = false
        var escaped = false
        for (offset, byte) in bytes.enumerated() {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > limit { return offset }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return nil
    }
}

/// Typed, checked reads from one JSON object, each failure naming the field's full path.
private struct Fields {
    let members: [String: Any]
    let path: String

    init(_ members: [String: Any], path: String) {
        self.members = members
        self.path = path
    }

    static func element(_ value: Any, path: String) throws(PayloadProblem) -> Fields {
        guard let object = value as? [String: Any] else {
            throw PayloadProblem(field: path, reason: "expected an object, got \(kind(value))")
        }
        return Fields(object, path: path)
    }

    func name(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    func problem(_ key: String, _ reason: String) -> PayloadProblem {
        PayloadProblem(field: name(key), reason: reason)
    }

    /// A present, non-null value.
    private func required(_ key: String, _ expected: String) throws(PayloadProblem) -> Any {
        guard let value = members[key] else { throw problem(key, "missing (required \(expected))") }
        if value is NSNull { throw problem(key, "is null; expected \(expected)") }
        return value
    }

    /// The value when present; a null is refused (optionals are omitted, never null).
    private func optional(_ key: String, _ expected: String) throws(PayloadProblem) -> Any? {
        guard let value = members[key] else { return nil }
        if value is NSNull { throw problem(key, "is null; optional fields are omitted, never null (expected \(expected))") }
        return value
    }

    static func kind(_ value: Any) -> String {
        switch value {
        case is NSNull: return "null"
        case let number as NSNumber: return isBool(number) ? "a boolean" : "the number \(number)"
        case let text as String: return "the string \"\(text.prefix(40))\""
        case is [Any]: return "an array"
        case is [String: Any]: return "an object"
        default: return "\(type(of: value))"
        }
    }

    static func isBool(_ number: NSNumber) -> Bool { String(cString: number.objCType) == "c" }

    func string(_ key: String) throws(PayloadProblem) -> String {
        let value = try required(key, "string")
        guard let text = value as? String else { throw problem(key, "expected a string, got \(Self.kind(value))") }
        return text
    }

    func optionalString(_ key: String) throws(PayloadProblem) -> String? {
        guard let value = try optional(key, "string") else { return nil }
        guard let text = value as? String else { throw problem(key, "expected a string, got \(Self.kind(value))") }
        return text
    }

    func uuid(_ key: String) throws(PayloadProblem) -> String {
        let text = try string(key)
        try Self.checkUUID(text, field: name(key), orEmpty: false)
        return text
    }

    static func checkUUID(_ text: String, field: String, orEmpty: Bool) throws(PayloadProblem) {
        let expected = orEmpty ? "\"\" or a UUIDv7" : "a UUIDv7"
        guard let id = UUIDv7(text) else {
            throw PayloadProblem(field: field, reason: "expected \(expected) like 0190d4e2-7b1a-7c3e-9f10-2a4b6c8d0e1f, got \"\(text.prefix(40))\"")
        }
        guard id.version == 7, id.variant == 0b10 else {
            throw PayloadProblem(field: field, reason: "\"\(text)\" is a UUID but not version 7 (RFC 9562); expected \(expected)")
        }
        guard id.text == text else { throw PayloadProblem(field: field, reason: "UUIDs are lowercase; got \"\(text)\"") }
    }

    func timestamp(_ key: String) throws(PayloadProblem) -> Int64 {
        let text = try string(key)
        guard let millis = Timestamp.unixMillis(parsing: text) else {
            throw problem(key, "expected a UTC timestamp YYYY-MM-DDTHH:MM:SS.mmmZ, got \"\(text.prefix(40))\"")
        }
        return millis
    }

    func choice(_ key: String, _ allowed: Set<String>) throws(PayloadProblem) -> String {
        let text = try string(key)
        guard allowed.contains(text) else {
            throw problem(key, "expected one of \(allowed.sorted().joined(separator: ", ")), got \"\(text.prefix(40))\"")
        }
        return text
    }

    func optionalChoice(_ key: String, _ allowed: Set<String>) throws(PayloadProblem) -> String? {
        guard try optionalString(key) != nil else { return nil }
        return try choice(key, allowed)
    }

    func bool(_ key: String) throws(PayloadProblem) -> Bool {
        let value = try required(key, "boolean")
        guard let number = value as? NSNumber, Self.isBool(number) else {
            throw problem(key, "expected true or false, got \(Self.kind(value))")
        }
        return number.boolValue
    }

    /// A JSON number (not a boolean), with seed 05's rule that an integral value has no decimal point.
    private func numeric(_ key: String, _ value: Any) throws(PayloadProblem) -> Double {
        guard let number = value as? NSNumber, !Self.isBool(number) else {
            throw problem(key, "expected a number, got \(Self.kind(value))")
        }
        let double = number.doubleValue
        guard double.isFinite else { throw problem(key, "must be finite") }
        // JSONSerialization reads a literal with a fraction or exponent as a double ("d").
        if String(cString: number.objCType) == "d", double.rounded(.towardZero) == double, abs(double) < 9.0e15 {
            throw problem(key, "the integral value \(Int64(double)) must be written without a decimal point or exponent")
        }
        return double
    }

    func integer(_ key: String) throws(PayloadProblem) -> Int64 {
        let value = try required(key, "integer")
        let double = try numeric(key, value)
        guard double.rounded(.towardZero) == double, abs(double) < 9.0e15 else {
            throw problem(key, "expected an integer, got \(double)")
        }
        return Int64(double)
    }

    func number<R: RangeExpression<Double>>(_ key: String, in range: R, range text: String) throws(PayloadProblem) -> Double {
        let double = try numeric(key, try required(key, "number"))
        guard range.contains(double) else { throw problem(key, "expected a number in \(text), got \(double)") }
        return double
    }

    func optionalNumber<R: RangeExpression<Double>>(
        _ key: String, in range: R, range text: String
    ) throws(PayloadProblem) -> Double? {
        guard let value = try optional(key, "number") else { return nil }
        let double = try numeric(key, value)
        guard range.contains(double) else { throw problem(key, "expected a number in \(text), got \(double)") }
        return double
    }

    func object(_ key: String) throws(PayloadProblem) -> Fields {
        let value = try required(key, "object")
        guard let object = value as? [String: Any] else { throw problem(key, "expected an object, got \(Self.kind(value))") }
        return Fields(object, path: name(key))
    }

    func optionalObject(_ key: String) throws(PayloadProblem) -> Fields? {
        guard let value = try optional(key, "object") else { return nil }
        guard let object = value as? [String: Any] else { throw problem(key, "expected an object, got \(Self.kind(value))") }
        return Fields(object, path: name(key))
    }

    func array(_ key: String) throws(PayloadProblem) -> [Any] {
        let value = try required(key, "array")
        guard let array = value as? [Any] else { throw problem(key, "expected an array, got \(Self.kind(value))") }
        return array
    }
}
