import Testing

@testable import BeekonDevice

@Suite("Location normalisation")
struct LocationTests {
    static let id = UUIDv7("0190d4e2-7b1a-7c3e-9f10-2a4b6c8d0e20")!

    @Test(
        "a non-finite latitude or longitude rejects the fix",
        arguments: [
            (Double.nan, 0.0), (0.0, Double.nan), (Double.infinity, 0.0), (0.0, -Double.infinity),
        ])
    func rejectsNonFiniteCoordinates(latitude: Double, longitude: Double) {
        #expect(Location(id: Self.id, latitude: latitude, longitude: longitude, timestamp: 0) == nil)
    }

    @Test(
        "NaN, infinite or negative accuracy and speed become nil",
        arguments: [
            Double.nan, .infinity, -.infinity, -0.5, -Double.leastNonzeroMagnitude,
        ])
    func invalidAccuracyAndSpeed(value: Double) throws {
        let fix = try #require(
            Location(id: Self.id, latitude: 1, longitude: 2, timestamp: 0, accuracy: value, speed: value))
        #expect(fix.accuracy == nil)
        #expect(fix.speed == nil)
    }

    @Test(
        "non-finite altitude becomes nil; any finite altitude stays",
        arguments: [
            (Double.nan, nil), (.infinity, nil), (-.infinity, nil), (-420.5, -420.5), (0, 0), (8848.86, 8848.86),
        ] as [(Double, Double?)])
    func altitude(value: Double, expected: Double?) throws {
        let fix = try #require(Location(id: Self.id, latitude: 1, longitude: 2, timestamp: 0, altitude: value))
        #expect(fix.altitude == expected)
    }

    @Test(
        "bearing outside [0, 360) becomes nil",
        arguments: [
            (Double.nan, nil), (-0.001, nil), (360, nil), (720, nil), (.infinity, nil),
            (0, 0), (359.999, 359.999), (180, 180),
        ] as [(Double, Double?)])
    func bearing(value: Double, expected: Double?) throws {
        let fix = try #require(Location(id: Self.id, latitude: 1, longitude: 2, timestamp: 0, bearing: value))
        #expect(fix.bearing == expected)
    }

    @Test("zero stays zero and absence stays absent: nothing is invented")
    func zeroIsNotAbsence() throws {
        let zeros = try #require(
            Location(
                id: Self.id, latitude: 0, longitude: 0, timestamp: 0, accuracy: 0, speed: 0, bearing: 0, altitude: 0))
        #expect(zeros.accuracy == 0)
        #expect(zeros.speed == 0)
        #expect(zeros.bearing == 0)
        #expect(zeros.altitude == 0)
        let absent = try #require(Location(id: Self.id, latitude: 0, longitude: 0, timestamp: 0))
        #expect(absent.accuracy == nil)
        #expect(absent.speed == nil)
        #expect(absent.bearing == nil)
        #expect(absent.altitude == nil)
    }

    @Test("valid values pass through unchanged")
    func passThrough() throws {
        let fix = try #require(
            Location(
                id: Self.id, latitude: 37.7749, longitude: -122.4194, timestamp: 1_781_526_850_000,
                accuracy: 5.2, speed: 2.5, bearing: 180, altitude: 14.3, quality: .lowAccuracy,
                trigger: .checkIn, motion: .stationary, activity: .cycling, isMock: true))
        #expect(fix.latitude == 37.7749)
        #expect(fix.longitude == -122.4194)
        #expect(fix.accuracy == 5.2)
        #expect(fix.speed == 2.5)
        #expect(fix.bearing == 180)
        #expect(fix.altitude == 14.3)
        #expect(fix.quality == .lowAccuracy)
        #expect(fix.trigger == .checkIn)
        #expect(fix.motion == .stationary)
        #expect(fix.activity == .cycling)
        #expect(fix.isMock)
    }
}

@Suite("Wire spellings")
struct WireSpellingTests {
    @Test("enums are spelled as seed 05 spells them")
    func spellings() {
        #expect(Trigger.allCases.map(\.rawValue) == ["interval", "motion", "check_in", "geofence", "manual"])
        #expect(Motion.allCases.map(\.rawValue) == ["moving", "stationary", "unknown"])
        #expect(
            Activity.allCases.map(\.rawValue) == [
                "stationary", "walking", "running", "cycling", "automotive", "unknown",
            ])
        #expect(Quality.allCases.map(\.rawValue) == ["low_accuracy", "implausible_speed"])
        #expect(Platform.allCases.map(\.rawValue) == ["ios", "android"])
        #expect(GeofenceEventType.allCases.map(\.rawValue) == ["enter", "exit"])
    }
}
