import BeekonDevice

/// One parameter of an action (a key of `params`).
public struct ActionParameter: Sendable {
    public let name: String
    public let kind: Kind
    public let required: Bool
    public let summary: String
    /// A value as a fleet file or a JSON body writes it.
    public let example: String

    /// What the parameter holds, as a reader checks it.
    public enum Kind: Sendable {
        /// Milliseconds in range: a JSON integer; a fleet file may also write a duration (`2s`).
        case millis(NumberRange)
        /// A number in range.
        case number(NumberRange)
        /// Seconds in range, kept as milliseconds.
        case seconds(NumberRange)
        /// An SDK configuration, as a group's `config` block.
        case config
        /// A map of strings (`{index}`, `{group}` and `{id}` filled per device).
        case stringMap
        /// A list of geofences, as a group's `geofences`.
        case geofences
        /// A list of strings.
        case strings
        /// One of these words (the SDK's own names).
        case choice([String])
        /// An RFC 3339 instant (`2026-06-15T08:00:00Z`, or with an offset), kept as Unix ms.
        case instant
        /// A latency distribution, `{median: MS, tail: MS}` (either may be left out), each in
        /// `NetworkProfile`'s range.
        case latency
        /// An SDK version string, as a group's `sdkVersion` (`ActionParameter.isVersion`).
        case version
    }

    /// Whether `text` is an SDK version as a group's `sdkVersion` and `upgrade` take it: 1 to
    /// 64 characters without spaces, such as 0.1.1.
    public static func isVersion(_ text: String) -> Bool {
        (1...64).contains(text.count) && !text.contains(where: \.isWhitespace)
    }

    /// What a version is, for errors and documents.
    public static let versionExpected = "1 to 64 characters without spaces, such as 0.1.1"

    /// The JSON type a value of `kind` has (a fleet file's YAML may be looser: `2s` for ms).
    public enum JSONType: String, Sendable, CaseIterable, Codable {
        case integer, number, string, object, array
    }

    public var jsonType: JSONType {
        switch kind {
        case .millis: .integer
        case .number, .seconds: .number
        case .config, .stringMap, .latency: .object
        case .geofences, .strings: .array
        case .choice, .instant, .version: .string
        }
    }

    /// The range of a number kind; nil for the others.
    public var range: NumberRange? {
        switch kind {
        case .millis(let range), .number(let range), .seconds(let range): range
        case .config, .stringMap, .geofences, .strings, .choice, .instant, .latency, .version: nil
        }
    }

    /// The words a `choice` takes; nil for the other kinds.
    public var choices: [String]? {
        if case .choice(let words) = kind { return words }
        return nil
    }

    /// A value a reader found for a parameter.
    public enum Value: Sendable, Hashable {
        case millis(Int64)
        case number(Double)
        case config(BeekonConfig)
        case stringMap(StringMap)
        case geofences([Geofence])
        case strings([String])
        /// One of a `choice`'s words.
        case choice(String)
        /// An instant, Unix ms.
        case instant(Int64)
        /// A latency distribution's median and tail (its p95 above the median), ms (nil: not given).
        case latency(medianMillis: Int64?, tailMillis: Int64?)
        /// An SDK version.
        case version(String)

        /// Milliseconds, for the kinds kept as milliseconds.
        package var millis: Int64? {
            if case .millis(let value) = self { return value }
            return nil
        }
    }
}
