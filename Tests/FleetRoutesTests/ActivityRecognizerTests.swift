import BeekonDevice
import Testing

@testable import FleetRoutes

@Suite("Activity recognizer")
struct ActivityRecognizerTests {
    /// A straight 5 km route north, for motions at a speed.
    static let route = Route(
        name: "line",
        points: (0...50).map { RoutePoint(latitude: 52.5 + Double($0) * 0.0009, longitude: 13.4) })

    /// What a recognizer seeded `seed` reports every `everyMillis` along `motion`, for `minutes`.
    static func labels(
        _ motion: RouteMotion, seed: UInt64 = 1, everyMillis: Int64 = 1000, minutes: Int64
    ) -> [(at: Int64, reading: ActivityReading)] {
        var recognizer = ActivityRecognizer(seed: seed)
        return stride(from: Int64(0), through: minutes * 60_000, by: Int(everyMillis)).map { at in
            (at, recognizer.observe(at: at, truth: motion.position(afterMillis: at)))
        }
    }

    @Test(
        "the speed's band without a declared mode, the mode while moving with one",
        arguments: [
            (0.0, nil, Activity.stationary), (0.29, nil, .stationary), (0.3, nil, .walking), (1.4, nil, .walking),
            (2.19, nil, .walking), (2.2, nil, .running), (4.49, nil, .running), (4.5, nil, .cycling),
            (7.99, nil, .cycling), (8, nil, .automotive), (30, nil, .automotive), (4.2, Pace.walk, .walking),
            (1.5, .drive, .automotive), (9, .cycle, .cycling), (0, .drive, .stationary), (2, .run, .running),
        ] as [(Double, Pace?, Activity)])
    func classification(speed: Double, mode: Pace?, expected: Activity) {
        #expect(ActivityRecognizer.classify(speed: speed, mode: mode) == expected)
    }

    @Test(
        "the start is unknown, at low confidence, until the first evidence has held 10–30 s",
        arguments: UInt64(1)...20)
    func startIsUnknown(seed: UInt64) throws {
        let motion = RouteMotion(
            route: Self.route, timing: .speed(metersPerSecond: 1.4, dwellEveryMeters: 0, dwellSeconds: 0))
        let readings = Self.labels(motion, seed: seed, minutes: 1)
        let first = try #require(readings.firstIndex { $0.reading.activity != .unknown })
        #expect(readings[first].at >= 10_000 && readings[first].at <= 30_000)
        #expect(readings[..<first].allSatisfy { $0.reading.activity == .unknown && $0.reading.level == .low })
    }

    @Test(
        "a walk reports walking after the debounce and never anything else, at any cadence",
        arguments: [1000, 5000, 30_000] as [Int64])
    func walk(everyMillis: Int64) throws {
        let motion = RouteMotion(
            route: Self.route, timing: .speed(metersPerSecond: 1.4, dwellEveryMeters: 0, dwellSeconds: 0))
        for seed in UInt64(1)...10 {
            let readings = Self.labels(motion, seed: seed, everyMillis: everyMillis, minutes: 30)
            let first = try #require(readings.firstIndex { $0.reading.activity != .unknown })
            #expect(readings[first].at <= 30_000 + everyMillis)
            #expect(readings[first...].allSatisfy { $0.reading.activity == .walking })
            #expect(readings.last?.reading.level == .high, "a settled walk is reported with high confidence")
        }
    }

    @Test("a walker's 20 s bursts at 3 m/s stay walking; 2 min at 3 m/s is running within 45 s")
    func burstsAreNotRunning() {
        func observe(_ speeds: [Double], seed: UInt64) -> [Activity] {
            var recognizer = ActivityRecognizer(seed: seed)
            return speeds.enumerated().map { second, speed in
                let truth = TruePosition(latitude: 0, longitude: 0, speed: speed, bearing: 0)
                return recognizer.observe(at: Int64(second) * 1000, truth: truth).activity
            }
        }
        // 10 minutes of walking with a 20 s burst in every minute.
        let bursty = (0..<600).map { $0 % 60 >= 40 ? 3.0 : 1.4 }
        let sustained = Array(repeating: 1.4, count: 120) + Array(repeating: 3.0, count: 120)
        for seed in UInt64(1)...20 {
            #expect(!observe(bursty, seed: seed).contains(.running))
            let labels = observe(sustained, seed: seed)
            #expect(labels[119] == .walking)
            #expect(labels[(120 + 45)...].allSatisfy { $0 == .running })
        }
    }

    @Test(
        "a drive with 90 s stops at lights stays automotive, by its speed or by its declared mode",
        arguments: [nil, .drive] as [Pace?])
    func driveWithStops(mode: Pace?) throws {
        let timing = RouteMotion.Timing.speed(metersPerSecond: 13, dwellEveryMeters: 600, dwellSeconds: 90)
        let motion = RouteMotion(route: Self.route, timing: timing, travelMode: mode)
        for seed in UInt64(1)...10 {
            let readings = Self.labels(motion, seed: seed, minutes: 30)
            #expect(readings.contains { motion.position(afterMillis: $0.at).speed == 0 }, "the drive never stopped")
            let first = try #require(readings.firstIndex { $0.reading.activity != .unknown })
            #expect(readings[first...].allSatisfy { $0.reading.activity == .automotive })
        }
    }

    @Test(
        "a dwell becomes stationary after the debounce (a car 2–4 min in, a walker 10–30 s), then moves on",
        arguments: [(.walk, 30_000), (.drive, 240_000)] as [(Pace, Int64)])
    func dwellBecomesStationary(mode: Pace, within: Int64) throws {
        let timing = RouteMotion.Timing.speed(
            metersPerSecond: mode.metersPerSecond, dwellEveryMeters: 1000, dwellSeconds: 300)
        let motion = RouteMotion(route: Self.route, timing: timing, travelMode: mode)
        let moving = ActivityRecognizer.classify(speed: 1, mode: mode)
        for seed in UInt64(1)...10 {
            let readings = Self.labels(motion, seed: seed, minutes: 20)
            let stop = try #require(readings.firstIndex { motion.position(afterMillis: $0.at).speed == 0 })
            let stoppedAt = readings[stop].at
            let settled = try #require(readings[stop...].firstIndex { $0.reading.activity == .stationary })
            #expect(readings[settled].at - stoppedAt <= within)
            #expect(readings[settled].at - stoppedAt >= 10_000, "a stop was reported at once")
            #expect(readings[stop..<settled].allSatisfy { $0.reading.activity == moving })
            // Five minutes on, it is moving again and says so within the debounce.
            let resumed = stoppedAt + 300_000
            #expect(readings.contains { $0.at > resumed && $0.at <= resumed + 30_000 && $0.reading.activity == moving })
        }
    }

    @Test("after more than 90 s without a fix the recognizer starts again from unknown")
    func gapForgets() {
        var recognizer = ActivityRecognizer(seed: 5)
        let truth = TruePosition(latitude: 0, longitude: 0, speed: 1.4, bearing: 0)
        for second in 0...60 { _ = recognizer.observe(at: Int64(second) * 1000, truth: truth) }
        #expect(recognizer.observe(at: 150_000, truth: truth).activity == .walking, "a 90 s silence forgot")
        #expect(recognizer.observe(at: 240_001, truth: truth).activity == .unknown)
    }

    @Test(
        "confidence: unknown is low, a new activity starts medium, a settled one is high, contrary evidence lowers it")
    func confidence() throws {
        var recognizer = ActivityRecognizer(seed: 9)
        func reading(_ second: Int64, _ speed: Double) -> ActivityReading {
            recognizer.observe(
                at: second * 1000, truth: TruePosition(latitude: 0, longitude: 0, speed: speed, bearing: 0))
        }
        var readings: [Int64: ActivityReading] = [:]
        for second in Int64(0)..<300 { readings[second] = reading(second, 1.4) }
        let first = try #require((0..<300).first { readings[Int64($0)]!.activity == .walking })
        #expect((45...55).contains(readings[Int64(first)]!.confidence))
        #expect(readings[299]!.confidence >= 95)
        // Standing: walking's confidence falls while the stop is not yet reported.
        var doubt: [ActivityReading] = []
        for second in Int64(300)..<310 { doubt.append(reading(second, 0)) }
        #expect(doubt.allSatisfy { $0.activity == .walking })
        #expect(doubt.last!.confidence <= 90)
    }

    @Test("the same seed gives the same labels and confidences; the seed moves the debounces")
    func reproducible() {
        let timing = RouteMotion.Timing.speed(metersPerSecond: 13, dwellEveryMeters: 2000, dwellSeconds: 400)
        let motion = RouteMotion(route: Self.route, timing: timing)
        let one = Self.labels(motion, seed: 42, minutes: 30).map(\.reading)
        #expect(one == Self.labels(motion, seed: 42, minutes: 30).map(\.reading))
        #expect(one.map(\.activity) != Self.labels(motion, seed: 43, minutes: 30).map(\.reading.activity))
    }

    @Test("the provider labels each fix with its recognizer's reading: unknown first, walking once it holds")
    func providerLabelsFixes() throws {
        let motion = RouteMotion(
            route: Self.route, timing: .speed(metersPerSecond: 1.4, dwellEveryMeters: 0, dwellSeconds: 0))
        var provider = OSProvider(profile: .clean, seed: 3)
        var labels: [Activity] = []
        for second in Int64(0)..<120 {
            let delivered = provider.fix(
                at: second * 1000, truth: motion.position(afterMillis: second * 1000), request: .high)
            let fix = try #require(delivered)
            #expect(fix.activity == provider.activityReading?.activity)
            labels.append(try #require(fix.activity))
        }
        #expect(labels.first == .unknown)
        #expect(labels.last == .walking)
        #expect(Set(labels) == [.unknown, .walking])
    }
}
