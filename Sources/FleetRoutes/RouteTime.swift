import BeekonDevice

/// Times as route files write them: ISO-8601 text or Unix epoch numbers, read into Unix ms.
///
/// A small byte parser rather than a date formatter: formatters are slow to build and lenient
/// in ways that hide typos, and a fleet may load many routes at start.
enum RouteTime {
    /// What a time should look like, for error messages.
    package static let expected = "an ISO-8601 time like 2024-05-01T08:30:00Z or Unix epoch seconds"

    /// Unix ms for ISO-8601 text or an epoch number (seconds or ms, decided by magnitude).
    package static func unixMillis(parsingText text: some StringProtocol) -> Int64? {
        if let millis = Timestamp.unixMillis(parsingISO8601: text) { return millis }
        guard let value = Double(String(text)) else { return nil }
        return unixMillis(epoch: value)
    }

    /// Unix ms for an epoch number: seconds below 1e11, milliseconds from there up.
    ///
    /// 1e11 seconds is the year 5138 and 1e11 ms is 1973, so any plausible recording time falls
    /// clearly on one side. Nil for non-finite or absurd values (beyond ±10^15 ms, ~31,000 years).
    package static func unixMillis(epoch value: Double) -> Int64? {
        guard value.isFinite else { return nil }
        let millis = abs(value) < 1e11 ? value * 1000 : value
        guard abs(millis) < 1e15 else { return nil }
        return Int64(millis.rounded())
    }
}
