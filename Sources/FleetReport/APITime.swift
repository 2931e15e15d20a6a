import BeekonDevice

/// An instant: `2026-11-26T14:00:00.000Z` (the SDK's own wire form), from Unix milliseconds.
package struct APITime: Encodable, Sendable, APIDescribed {
    var unixMillis: Int64

    package init(_ unixMillis: Int64) { self.unixMillis = unixMillis }

    /// Nil for nil: `APITime(optional: device.lastUploadAt)`.
    package init?(optional unixMillis: Int64?) {
        guard let unixMillis else { return nil }
        self.unixMillis = unixMillis
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Timestamp.text(unixMillis: unixMillis))
    }

    package static var apiSchema: APISchema { APISchema(.string(oneOf: nil), format: "date-time") }
}
