import Testing

@testable import BeekonDevice

@Suite("Stationary detector")
struct StationaryDetectorTests {
    static let metersPerDegree = Geodesy.earthRadiusMeters * .pi / 180

    static func observe(_ detector: inout StationaryDetector, seconds: Int64, north: Double) -> StationaryDetector
        .Change?
    {
        detector.observe(latitude: 40 + north / metersPerDegree, longitude: -3.7, timestamp: seconds * 1000)
    }

    @Test("motion is unknown until detected; staying within the radius for 3 minutes is stationary")
    func becomesStationary() {
        var detector = StationaryDetector(radiusMeters: 100)
        #expect(detector.motion == .unknown)
        #expect(Self.observe(&detector, seconds: 0, north: 0) == nil)
        #expect(Self.observe(&detector, seconds: 100, north: 60) == nil)
        #expect(Self.observe(&detector, seconds: 179, north: -90) == nil)
        #expect(detector.motion == .unknown)
        #expect(Self.observe(&detector, seconds: 180, north: 99) == .becameStationary)
        #expect(detector.motion == .stationary)
        #expect(Self.observe(&detector, seconds: 600, north: 10) == nil)
    }

    @Test("leaving the radius is moving again, once")
    func becomesMoving() {
        var detector = StationaryDetector(radiusMeters: 100)
        _ = Self.observe(&detector, seconds: 0, north: 0)
        _ = Self.observe(&detector, seconds: 200, north: 0)
        #expect(detector.isInsideRegion(latitude: 40 + 50 / Self.metersPerDegree, longitude: -3.7))
        #expect(Self.observe(&detector, seconds: 210, north: 150) == .becameMoving)
        #expect(detector.motion == .moving)
        #expect(Self.observe(&detector, seconds: 220, north: 400) == nil)
    }

    @Test(
        "only leaving a stay is a change: the first move out of unknown labels motion moving but reports nothing",
        arguments: [
            // (north of the first fix, metres, at each next fix; the changes reported; the motion after)
            ([150.0, 400], [nil, nil] as [StationaryDetector.Change?], Motion.moving),
            ([0, 0, 0, 10, 500], [nil, nil, .becameStationary, nil, .becameMoving], .moving),
            ([300, 300, 300, 300, 900], [nil, nil, nil, .becameStationary, .becameMoving], .moving),
        ])
    func changesReported(path: [Double], changes: [StationaryDetector.Change?], motion: Motion) {
        var detector = StationaryDetector(radiusMeters: 100)
        _ = Self.observe(&detector, seconds: 0, north: 0)
        let seen = path.enumerated().map { index, north in
            Self.observe(&detector, seconds: Int64(index + 1) * 60, north: north)
        }
        #expect(seen == changes)
        #expect(detector.motion == motion)
    }

    @Test("a stop reported by the emulated world is stationary at once")
    func routeStop() {
        var detector = StationaryDetector(radiusMeters: 100)
        #expect(detector.stopped(latitude: 40, longitude: -3.7, timestamp: 0) == .becameStationary)
        #expect(detector.stopped(latitude: 40, longitude: -3.7, timestamp: 5) == nil)
    }
}
