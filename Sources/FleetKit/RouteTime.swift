import BeekonDevice

/// Times as route files write them: ISO-8601 text or Unix epoch numbers, read into Unix ms.
///
/// A small byte parser rather than a date formatter: formatters are slow to build and lenient
/// in ways that hide typos, and a fleet may load many routes at start.
enum RouteTime {
    /// What a time should look like, for error messages.
    static let expected = "an ISO-8601 time like 2024-05-01T08:30:00Z or Unix epoch seconds"

    /// Unix ms for ISO-8601 text or an epoch number (seconds or ms, decided by magnitude).
    static func unixMillis(parsingText text: some StringProtocol) -> Int64? {
        if let millis = unixMillis(parsingISO: text) { return millis }
        guard let value = Double(String(text)) else { return nil }
        return unixMillis(epoch: value)
    }

    /// Unix ms for an epoch number: seconds below 1e11, milliseconds from there up.
    ///
    /// 1e11 seconds is the year 5138 and 1e11 ms is 1973, so any plausible recording time falls
    /// clearly on one side. Nil for non-finite or absurd values (beyond ±10^15 ms, ~31,000 years).
    static func unixMillis(epoch value: Double) -> Int64? {
        guard value.isFinite else { return nil }
        let millis = abs(value) < 1e11 ? value * 1000 : value
        guard abs(millis) < 1e15 else { return nil }
        return Int64(millis.rounded())
    }

    /// Unix ms for `YYYY-MM-DDTHH:MM:SS[.f…](Z|±HH:MM|±HHMM)`; nil for any other shape.
    ///
    /// Fractions of any length are truncated to milliseconds. A time without a zone is rejected:
    /// guessing local time would shift a whole route by hours without a word.
    static func unixMillis(parsingISO text: some StringProtocol) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20,
            let year = number(bytes, 0, 4), bytes[4] == UInt8(ascii: "-"),
            let month = number(bytes, 5, 2), bytes[7] == UInt8(ascii: "-"),
            let day = number(bytes, 8, 2),
            bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t")
                || bytes[10] == UInt8(ascii: " "),
            let hour = number(bytes, 11, 2), bytes[13] == UInt8(ascii: ":"),
            let minute = number(bytes, 14, 2), bytes[16] == UInt8(ascii: ":"),
            let second = number(bytes, 17, 2),
            (1...12).contains(month), (1...Timestamp.daysIn(month: month, year: year)).contains(day),
            hour < 24, minute < 60, second <= 60
        else { return nil }
        var index = 19
        var millis: Int64 = 0
        if bytes[index] == UInt8(ascii: ".") || bytes[index] == UInt8(ascii: ",") {
            index += 1
            var digitCount = 0
            while index < bytes.count, let digit = digitValue(bytes[index]) {
                if digitCount < 3 { millis = millis * 10 + digit }
                digitCount += 1
                index += 1
            }
            guard digitCount > 0 else { return nil }
            for _ in digitCount..<max(digitCount, 3) { millis *= 10 }
        }
        guard index < bytes.count else { return nil }
        var offsetMinutes: Int64 = 0
        switch bytes[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            index += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign: Int64 = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            guard let offsetHour = number(bytes, index + 1, 2), offsetHour < 24 else { return nil }
            var offsetMinute: Int64 = 0
            index += 3
            if index < bytes.count {
                // Both `+02:00` and `+0200` appear in the wild.
                let minuteStart = bytes[index] == UInt8(ascii: ":") ? index + 1 : index
                guard let value = number(bytes, minuteStart, 2), value < 60 else { return nil }
                offsetMinute = value
                index = minuteStart + 2
            }
            offsetMinutes = sign * (offsetHour * 60 + offsetMinute)
        default:
            return nil
        }
        guard index == bytes.count else { return nil }
        let days = Timestamp.daysSinceEpoch(year: year, month: month, day: day)
        let localSeconds = ((days * 24 + hour) * 60 + minute) * 60 + second
        return (localSeconds - offsetMinutes * 60) * 1000 + millis
    }

    private static func number(_ bytes: [UInt8], _ start: Int, _ count: Int) -> Int64? {
        guard start >= 0, start + count <= bytes.count else { return nil }
        var value: Int64 = 0
        for byte in bytes[start..<start + count] {
            guard let digit = digitValue(byte) else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    private static func digitValue(_ byte: UInt8) -> Int64? {
        guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
        return Int64(byte - UInt8(ascii: "0"))
    }
}
