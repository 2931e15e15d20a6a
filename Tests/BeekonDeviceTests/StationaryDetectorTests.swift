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

    @Test("leaving the radius is moving again, once, confirmed by a second fix beyond it")
    func becomesMoving() {
        var detector = StationaryDetector(radiusMeters: 100)
        _ = Self.observe(&detector, seconds: 0, north: 0)
        _ = Self.observe(&detector, seconds: 200, north: 0)
        #expect(detector.evidence(latitude: 40 + 50 / Self.metersPerDegree, longitude: -3.7, accuracy: nil) == .inside)
        #expect(Self.observe(&detector, seconds: 210, north: 150) == nil)
        #expect(detector.motion == .stationary)
        #expect(Self.observe(&detector, seconds: 215, north: 160) == .becameMoving)
        #expect(detector.motion == .moving)
        #expect(Self.observe(&detector, seconds: 220, north: 400) == nil)
    }

    @Test(
        "only leaving a stay is a change: the first move out of unknown labels motion moving but reports nothing",
        arguments: [
            // (north of the first fix, metres, at each next fix; the changes reported; the motion after)
            ([150.0, 400], [nil, nil] as [StationaryDetector.Change?], Motion.moving),
            ([0, 0, 0, 10, 500, 520], [nil, nil, .becameStationary, nil, nil, .becameMoving], .moving),
            (
                [300, 300, 300, 300, 300, 900, 900], [nil, nil, nil, nil, .becameStationary, nil, .becameMoving],
                .moving
            ),
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

    @Test(
        """
        noise does not end a stay or restart its three minutes: single outliers, fixes within their accuracy \
        of its edge
        """,
        arguments: [
            // (metres north, reported accuracy) every 30 s after the first fix at the anchor.
            [(800.0, 5.0), (0, 5), (0, 5), (0, 5), (0, 5), (0, 5)],
            [(0, 5), (140, 100), (0, 5), (-145, 100), (0, 5), (0, 5)],
            [(0, 5), (130, 65), (-120, 65), (0, 5), (2000, 5), (0, 5)],
        ] as [[(Double, Double)]])
    func noiseKeepsAStay(path: [(Double, Double)]) {
        var detector = StationaryDetector(radiusMeters: 100)
        _ = Self.observe(&detector, seconds: 0, north: 0)
        var changes: [StationaryDetector.Change] = []
        for (index, (north, accuracy)) in path.enumerated() {
            let change = detector.observe(
                latitude: 40 + north / Self.metersPerDegree, longitude: -3.7, accuracy: accuracy,
                timestamp: Int64(index + 1) * 30_000)
            if let change { changes.append(change) }
        }
        #expect(changes == [.becameStationary])
        #expect(detector.anchor?.timestamp == 0)
    }

    @Test(
        """
        a fix is inside within the radius, beyond past the radius plus its accuracy (at most the radius again), \
        and no evidence between
        """,
        arguments: [
            (140.0, 100.0 as Double?, StationaryDetector.Evidence.unclear), (201, 100, .beyond), (140, 20, .beyond),
            (149, 1000, .unclear),
            (151, 1000, .unclear), (1101, 1000, .beyond), (99.9, 10, .inside), (111, 10, .beyond),
            (101, nil, .beyond), (101, .nan, .beyond), (101, -50, .beyond), (99, nil, .inside),
        ])
    func evidence(north: Double, accuracy: Double?, evidence: StationaryDetector.Evidence) {
        var detector = StationaryDetector(radiusMeters: 100)
        _ = Self.observe(&detector, seconds: 0, north: 0)
        #expect(
            detector.evidence(latitude: 40 + north / Self.metersPerDegree, longitude: -3.7, accuracy: accuracy)
                == evidence)
    }

    @Test("two fixes beyond on opposite sides are noise, not a departure: their midpoint is inside")
    func oppositeSides() {
        var detector = StationaryDetector(radiusMeters: 100)
        _ = Self.observe(&detector, seconds: 0, north: 0)
        #expect(Self.observe(&detector, seconds: 180, north: 0) == .becameStationary)
        #expect(Self.observe(&detector, seconds: 190, north: 300) == nil)
        #expect(Self.observe(&detector, seconds: 200, north: -300) == nil)
        #expect(detector.motion == .stationary)
        #expect(Self.observe(&detector, seconds: 210, north: -320) == .becameMoving)
    }

    @Test("while the motion sensors hold it still (a route stop), GPS shows no departure; once walked on, it does")
    func heldStill() {
        var detector = StationaryDetector(radiusMeters: 100)
        #expect(detector.stopped(latitude: 40, longitude: -3.7, timestamp: 0) == .becameStationary)
        for second in stride(from: Int64(10), through: 60, by: 10) {
            #expect(Self.observe(&detector, seconds: second, north: 500) == nil)
        }
        #expect(detector.motion == .stationary)
        detector.walkedOn()
        #expect(Self.observe(&detector, seconds: 70, north: 500) == nil)
        #expect(Self.observe(&detector, seconds: 80, north: 520) == .becameMoving)
    }

    @Test("a stop reported by the emulated world is stationary at once")
    func routeStop() {
        var detector = StationaryDetector(radiusMeters: 100)
        #expect(detector.stopped(latitude: 40, longitude: -3.7, timestamp: 0) == .becameStationary)
        #expect(detector.stopped(latitude: 40, longitude: -3.7, timestamp: 5) == nil)
    }
}
