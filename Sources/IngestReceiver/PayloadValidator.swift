import BeekonDevice

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
    /// Reads the body within the depth and element limits.
    var parser: BoundedJSONParser

    static let triggers: Set<String> = ["interval", "motion", "check_in", "geofence", "manual"]
    static let motions: Set<String> = ["moving", "stationary", "unknown"]
    static let activities: Set<String> = ["stationary", "walking", "running", "cycling", "automotive", "unknown"]
    static let qualities: Set<String> = ["low_accuracy", "implausible_speed"]
    static let platforms: Set<String> = ["android", "ios"]
    static let geofenceTypes: Set<String> = ["enter", "exit"]

    /// The numeric fields' ranges, from seed 05's format and the SDK's rules (spec §4: non-finite,
    /// negative accuracy or speed and a bearing outside [0, 360) never leave the device).
    enum Ranges {
        static let schemaVersion = NumberRange.integer(1...1)
        static let latitude = NumberRange(-90...90, unit: "degrees")
        static let longitude = NumberRange(-180...180, unit: "degrees")
        static let accuracy = NumberRange(0...Double.greatestFiniteMagnitude, unit: "m")
        static let speed = NumberRange(0...Double.greatestFiniteMagnitude, unit: "m/s")
        /// 360 itself is refused separately: the SDK's bearing is in [0, 360).
        static let bearing = NumberRange(0...360, unit: "degrees")
        static let altitude = NumberRange(-Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude, unit: "m")
    }

    /// A validator whose parser refuses nesting deeper than `maxDepth` and more than `maxElements` values.
    init(maxDepth: Int, maxElements: Int) {
        parser = BoundedJSONParser(maxDepth: maxDepth, maxElements: maxElements)
    }

    /// The batch in `json` (UTF-8 bytes, already gunzipped), or the first problem found.
    func validate(_ json: [UInt8]) throws(PayloadProblem) -> IngestBatch {
        let object: JSONNode
        do {
            object = try parser.parse(json)
        } catch {
            throw PayloadProblem(field: "body", reason: error.description)
        }
        guard case .object(let root) = object else {
            throw PayloadProblem(field: "body", reason: "expected a JSON object at the top level")
        }
        let top = Fields(root, path: "")
        _ = try top.integer("schema_version", Ranges.schemaVersion)
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
            guard (1...100).contains(geofenceID.count) else {
                throw fields.problem("geofence_id", "must be 1 to 100 characters")
            }
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
        let bearing = try fields.optionalNumber("bearing", Ranges.bearing)
        if bearing == 360 {
            throw fields.problem("bearing", "\"360\" is out of range; expected 0 up to 360 (excluded)")
        }
        return IngestBatch.Location(
            id: try fields.uuid("id"), timestamp: try fields.timestamp("timestamp"),
            trigger: try fields.choice("trigger", triggers), motion: try fields.choice("motion", motions),
            isMock: try fields.bool("is_mock"),
            latitude: try fields.number("latitude", Ranges.latitude),
            longitude: try fields.number("longitude", Ranges.longitude),
            accuracy: try fields.optionalNumber("accuracy", Ranges.accuracy),
            speed: try fields.optionalNumber("speed", Ranges.speed),
            bearing: bearing,
            altitude: try fields.optionalNumber("altitude", Ranges.altitude),
            activity: try fields.optionalChoice("activity", activities),
            quality: try fields.optionalChoice("quality", qualities))
    }
}

/// Typed, checked reads from one JSON object, each failure naming the field's full path.
private struct Fields {
    let members: [String: JSONNode]
    let path: String

    init(_ members: [String: JSONNode], path: String) {
        self.members = members
        self.path = path
    }

    static func element(_ value: JSONNode, path: String) throws(PayloadProblem) -> Fields {
        guard case .object(let object) = value else {
            throw PayloadProblem(field: path, reason: "expected an object, got \(value.kind)")
        }
        return Fields(object, path: path)
    }

    func name(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    func problem(_ key: String, _ reason: String) -> PayloadProblem {
        PayloadProblem(field: name(key), reason: reason)
    }

    /// A present, non-null value.
    private func required(_ key: String, _ expected: String) throws(PayloadProblem) -> JSONNode {
        guard let value = members[key] else { throw problem(key, "missing (required \(expected))") }
        if value == .null { throw problem(key, "is null; expected \(expected)") }
        return value
    }

    /// The value when present; a null is refused (optionals are omitted, never null).
    private func optional(_ key: String, _ expected: String) throws(PayloadProblem) -> JSONNode? {
        guard let value = members[key] else { return nil }
        if value == .null {
            throw problem(key, "is null; optional fields are omitted, never null (expected \(expected))")
        }
        return value
    }

    func string(_ key: String) throws(PayloadProblem) -> String {
        let value = try required(key, "string")
        guard case .string(let text) = value else { throw problem(key, "expected a string, got \(value.kind)") }
        return text
    }

    func optionalString(_ key: String) throws(PayloadProblem) -> String? {
        guard let value = try optional(key, "string") else { return nil }
        guard case .string(let text) = value else { throw problem(key, "expected a string, got \(value.kind)") }
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
            throw PayloadProblem(
                field: field,
                reason: "expected \(expected) like 0190d4e2-7b1a-7c3e-9f10-2a4b6c8d0e1f, got \"\(text.prefix(40))\"")
        }
        guard id.version == 7, id.variant == 0b10 else {
            throw PayloadProblem(
                field: field, reason: "\"\(text)\" is a UUID but not version 7 (RFC 9562); expected \(expected)")
        }
        guard id.text == text else {
            throw PayloadProblem(field: field, reason: "UUIDs are lowercase; got \"\(text)\"")
        }
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
            throw problem(
                key, "expected one of \(allowed.sorted().joined(separator: ", ")), got \"\(text.prefix(40))\"")
        }
        return text
    }

    func optionalChoice(_ key: String, _ allowed: Set<String>) throws(PayloadProblem) -> String? {
        guard try optionalString(key) != nil else { return nil }
        return try choice(key, allowed)
    }

    func bool(_ key: String) throws(PayloadProblem) -> Bool {
        let value = try required(key, "boolean")
        guard case .bool(let flag) = value else { throw problem(key, "expected true or false, got \(value.kind)") }
        return flag
    }

    /// A whole number read exactly from its text: `1e16`, `1.0` and `9223372036854775808` are refused.
    func integer(_ key: String, _ range: NumberRange) throws(PayloadProblem) -> Int64 {
        let value = try required(key, "integer")
        guard case .number(let text) = value else { throw problem(key, "expected an integer, got \(value.kind)") }
        do {
            return try range.readInteger(text)
        } catch {
            throw problem(key, error.description)
        }
    }

    /// A number in `range`, with seed 05's rule that an integral value has no decimal point or exponent.
    private func numeric(_ key: String, _ value: JSONNode, _ range: NumberRange) throws(PayloadProblem) -> Double {
        guard case .number(let text) = value else { throw problem(key, "expected a number, got \(value.kind)") }
        let number: Double
        do {
            number = try range.read(text)
        } catch {
            throw problem(key, error.description)
        }
        if number.rounded(.towardZero) == number, abs(number) < 9.0e15,
            text.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") })
        {
            throw problem(
                key, "the integral value \(Int64(number)) must be written without a decimal point or exponent")
        }
        return number
    }

    func number(_ key: String, _ range: NumberRange) throws(PayloadProblem) -> Double {
        try numeric(key, try required(key, "number"), range)
    }

    func optionalNumber(_ key: String, _ range: NumberRange) throws(PayloadProblem) -> Double? {
        guard let value = try optional(key, "number") else { return nil }
        return try numeric(key, value, range)
    }

    func object(_ key: String) throws(PayloadProblem) -> Fields {
        let value = try required(key, "object")
        guard case .object(let object) = value else { throw problem(key, "expected an object, got \(value.kind)") }
        return Fields(object, path: name(key))
    }

    func optionalObject(_ key: String) throws(PayloadProblem) -> Fields? {
        guard let value = try optional(key, "object") else { return nil }
        guard case .object(let object) = value else { throw problem(key, "expected an object, got \(value.kind)") }
        return Fields(object, path: name(key))
    }

    func array(_ key: String) throws(PayloadProblem) -> [JSONNode] {
        let value = try required(key, "array")
        guard case .array(let array) = value else { throw problem(key, "expected an array, got \(value.kind)") }
        return array
    }
}
