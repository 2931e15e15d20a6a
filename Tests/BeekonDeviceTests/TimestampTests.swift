import Foundation
import Testing

@testable import BeekonDevice

@Suite("Timestamp")
struct TimestampTests {
    @Test(
        "Unix milliseconds become YYYY-MM-DDTHH:MM:SS.mmmZ",
        arguments: [
            (0, "1970-01-01T00:00:00.000Z"),
            (1_781_526_896_789, "2026-06-15T12:34:56.789Z"),
            (951_782_400_000, "2000-02-29T00:00:00.000Z"),
            (-1, "1969-12-31T23:59:59.999Z"),
            (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
            (1_709_251_199_000, "2024-02-29T23:59:59.000Z"),
        ] as [(Int64, String)])
    func formats(millis: Int64, text: String) {
        #expect(Timestamp.text(unixMillis: millis) == text)
        #expect(Timestamp.unixMillis(parsing: text) == millis)
    }

    @Test("every day across four centuries matches Foundation's calendar")
    func matchesFoundation() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        // One instant a day, at a varying time of day, from 1900 to 2300.
        var millis: Int64 = -2_208_988_800_000
        var step: Int64 = 0
        while millis < 10_413_792_000_000 {
            let date = Date(timeIntervalSince1970: Double(millis) / 1000)
            let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
            let expected = String(
                format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.year!, parts.month!, parts.day!,
                parts.hour!, parts.minute!, parts.second!, Int(((millis % 1000) + 1000) % 1000))
            #expect(Timestamp.text(unixMillis: millis) == expected)
            step = (step + 7_919_123) % 86_400_000
            millis += 86_400_000 + (step % 1000)
        }
    }

    @Test(
        "text of any other shape does not parse",
        arguments: [
            "2026-06-15T12:34:56Z", "2026-06-15 12:34:56.789Z", "2026-02-30T00:00:00.000Z",
            "2026-06-15T24:00:00.000Z", "2026-06-15T12:34:56.789+00:00", "2026-06-15T12:34:60.000Z",
            "2026-06-15t12:34:56.789z", "2026-06-15T12:34:56.7890Z",
        ])
    func rejects(text: String) {
        #expect(Timestamp.unixMillis(parsing: text) == nil)
    }

    @Test(
        "ISO 8601 with a zone parses as the SDK's form does, offsets and other fractions included",
        arguments: [
            ("2026-06-15T12:34:56.789Z", "2026-06-15T12:34:56.789Z"),
            ("2026-06-15T12:34:56Z", "2026-06-15T12:34:56.000Z"),
            ("2026-06-15T14:34:56.7+02:00", "2026-06-15T12:34:56.700Z"),
            ("2026-06-15 12:34:56,12345Z", "2026-06-15T12:34:56.123Z"),
            ("2026-06-15T07:04:56-0530", "2026-06-15T12:34:56.000Z"),
        ])
    func parsesISO8601(text: String, wire: String) {
        #expect(Timestamp.unixMillis(parsingISO8601: text) == Timestamp.unixMillis(parsing: wire))
        #expect(Timestamp.unixMillis(parsingISO8601: text) != nil)
    }

    @Test(
        "ISO 8601 without a zone, or of another shape, does not parse",
        arguments: [
            "2026-06-15T12:34:56", "2026-06-15", "2026-06-15T12:34:56.Z", "2026-13-01T00:00:00Z", "soon",
        ])
    func rejectsISO8601(text: String) {
        #expect(Timestamp.unixMillis(parsingISO8601: text) == nil)
    }

    @Test(
        "instants outside years 0000 to 9999 are written as the nearest writable one, never as a wrong date",
        arguments: [
            (253_402_300_799_999 as Int64, "9999-12-31T23:59:59.999Z"),
            (253_402_300_800_000, "9999-12-31T23:59:59.999Z"),  // 10000-01-01
            (Int64.max, "9999-12-31T23:59:59.999Z"),
            (-62_167_219_200_000, "0000-01-01T00:00:00.000Z"),
            (-62_167_219_200_001, "0000-01-01T00:00:00.000Z"),
            (Int64.min, "0000-01-01T00:00:00.000Z"),
        ])
    func clampsToFourDigitYears(millis: Int64, text: String) {
        #expect(Timestamp.text(unixMillis: millis) == text)
    }

    @Test("inputs take instants from 1970 to the end of 9999 only")
    func inputRange() {
        #expect(Timestamp.inputRange.contains(0))
        #expect(Timestamp.inputRange.contains(Double(Timestamp.maxWritable)))
        #expect(!Timestamp.inputRange.contains(Double(Timestamp.maxWritable + 1)))
        #expect(!Timestamp.inputRange.contains(-1))
        #expect(
            Timestamp.unixMillis(parsing: Timestamp.text(unixMillis: Timestamp.maxWritable)) == Timestamp.maxWritable)
    }
}
