import BeekonDevice
import Testing

@testable import FleetRoutes

@Suite("RouteTime")
struct RouteTimeTests {
    @Test(
        "ISO-8601 times with Z, any fraction and offsets become Unix ms",
        arguments: [
            ("2024-05-01T08:00:00Z", "2024-05-01T08:00:00.000Z"),
            ("2024-05-01T08:00:00.5Z", "2024-05-01T08:00:00.500Z"),
            ("2024-05-01T08:00:00.123456789Z", "2024-05-01T08:00:00.123Z"),
            ("2024-05-01T10:00:00+02:00", "2024-05-01T08:00:00.000Z"),
            ("2024-05-01T03:30:00.25-04:30", "2024-05-01T08:00:00.250Z"),
            ("2024-05-01T10:00:00+0200", "2024-05-01T08:00:00.000Z"),
            ("2024-03-01T00:30:00+01:00", "2024-02-29T23:30:00.000Z"),
            ("1969-12-31T23:59:59Z", "1969-12-31T23:59:59.000Z"),
        ])
    func iso(text: String, utc: String) {
        #expect(Timestamp.unixMillis(parsingISO8601: text) == millis(utc))
    }

    @Test(
        "malformed or zoneless ISO-8601 text is rejected",
        arguments: [
            "2024-05-01T08:00:00", "2024-05-01", "2024-13-01T08:00:00Z", "2023-02-29T08:00:00Z",
            "2024-05-01T08:00:00.Z", "2024-05-01T08:00:00+2", "2024-05-01T24:00:00Z",
            "2024-05-01T08:00:00Zjunk", "",
        ])
    func rejected(text: String) {
        #expect(Timestamp.unixMillis(parsingISO8601: text) == nil)
    }

    @Test("epoch numbers below 1e11 are seconds and larger ones milliseconds")
    func epoch() {
        #expect(RouteTime.unixMillis(parsingText: "1714550400") == 1_714_550_400_000)
        #expect(RouteTime.unixMillis(parsingText: "1714550400.25") == 1_714_550_400_250)
        #expect(RouteTime.unixMillis(parsingText: "1714550400123") == 1_714_550_400_123)
        #expect(RouteTime.unixMillis(epoch: .infinity) == nil)
        #expect(RouteTime.unixMillis(epoch: 1e300) == nil)
    }
}
