/// Wire timestamps: ISO-8601 UTC with exactly three fractional digits and a literal `Z`.
///
/// Written from Unix milliseconds by civil-calendar arithmetic, with no date formatter, because
/// every fix in every upload passes through here.
public enum Timestamp {
    /// The instants every input accepts (`clock.start`, query times, Unix ms): years 1970 to
    /// 9999, so every instant a run reaches is written in four-digit years.
    public static let inputRange = NumberRange.integer(0...maxWritable, unit: "ms (1970 to 9999)")
    /// 0000-01-01T00:00:00.000Z, the first instant with a four-digit year.
    public static let minWritable: Int64 = -62_167_219_200_000
    /// 9999-12-31T23:59:59.999Z, the last instant with a four-digit year.
    public static let maxWritable: Int64 = 253_402_300_799_999

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ` for `unixMillis`. Years 0000–9999 only: an instant outside
    /// `minWritable...maxWritable` is written as the nearest of them (inputs are kept to
    /// `inputRange`, so a run never gets there), never as a wrong date or a longer text.
    public static func text(unixMillis: Int64) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        append(unixMillis: unixMillis, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the 24 bytes of `YYYY-MM-DDTHH:MM:SS.mmmZ` for `unixMillis` to `bytes` (clamped
    /// to `minWritable...maxWritable`, as `text(unixMillis:)`).
    public static func append(unixMillis: Int64, to bytes: inout [UInt8]) {
        let (days, millisOfDay) = floorDivision(min(max(unixMillis, minWritable), maxWritable), 86_400_000)
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        let secondsOfDay = millisOfDay / 1000
        appendDigits(year, count: 4, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        appendDigits(month, count: 2, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        appendDigits(day, count: 2, to: &bytes)
        bytes.append(UInt8(ascii: "T"))
        appendDigits(secondsOfDay / 3600, count: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        appendDigits(secondsOfDay / 60 % 60, count: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        appendDigits(secondsOfDay % 60, count: 2, to: &bytes)
        bytes.append(UInt8(ascii: "."))
        appendDigits(millisOfDay % 1000, count: 3, to: &bytes)
        bytes.append(UInt8(ascii: "Z"))
    }

    /// Unix milliseconds for the SDK's own form, `YYYY-MM-DDTHH:MM:SS.mmmZ` exactly (what its
    /// payloads carry); nil for any other shape, a leap second included.
    public static func unixMillis(parsing text: some StringProtocol) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count == 24, bytes[10] == UInt8(ascii: "T"), bytes[19] == UInt8(ascii: "."),
            bytes[23] == UInt8(ascii: "Z"), bytes[17] != UInt8(ascii: "6")
        else { return nil }
        return unixMillis(iso8601: bytes)
    }

    /// Unix ms for `YYYY-MM-DDTHH:MM:SS[.f…](Z|±HH:MM|±HHMM)`; nil for any other shape.
    ///
    /// Fractions of any length are truncated to milliseconds. A time without a zone is rejected:
    /// guessing local time would shift a whole route by hours without a word.
    public static func unixMillis(parsingISO8601 text: some StringProtocol) -> Int64? {
        unixMillis(iso8601: Array(text.utf8))
    }

    /// The ISO-8601 reader over the text's bytes, shared by both forms (one copy of the text each).
    private static func unixMillis(iso8601 bytes: [UInt8]) -> Int64? {
        guard bytes.count >= 20,
            let year = number(bytes, 0, 4), bytes[4] == UInt8(ascii: "-"),
            let month = number(bytes, 5, 2), bytes[7] == UInt8(ascii: "-"),
            let day = number(bytes, 8, 2),
            bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t")
                || bytes[10] == UInt8(ascii: " "),
            let hour = number(bytes, 11, 2), bytes[13] == UInt8(ascii: ":"),
            let minute = number(bytes, 14, 2), bytes[16] == UInt8(ascii: ":"),
            let second = number(bytes, 17, 2),
            (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
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
        let days = daysSinceEpoch(year: year, month: month, day: day)
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

    // Howard Hinnant's days_from_civil / civil_from_days, on the proleptic Gregorian calendar.
    static func civilDate(daysSinceEpoch days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = floorDivision(z, 146_097).quotient
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (negative before it).
    public static func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDivision(y, 400).quotient
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The number of days in `month` (1–12) of `year`.
    public static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// `value ÷ divisor` rounded down, with its remainder (from 0 up to `divisor`), `divisor` > 0.
    package static func floorDivision(_ value: Int64, _ divisor: Int64) -> (
        quotient: Int64, remainder: Int64
    ) {
        let quotient = value >= 0 ? value / divisor : (value - divisor + 1) / divisor
        return (quotient, value - quotient * divisor)
    }

    private static func appendDigits(_ value: Int64, count: Int, to bytes: inout [UInt8]) {
        var divisor: Int64 = 1
        for _ in 1..<count { divisor *= 10 }
        var rest = min(max(value, 0), divisor * 10 - 1)
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }
}
