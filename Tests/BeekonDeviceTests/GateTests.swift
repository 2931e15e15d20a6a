import Testing

@testable import BeekonDevice

@Suite("Gate")
struct GateTests {
    static let origin = (latitude: 48.0, longitude: 11.0)
    /// Metres per degree of latitude on the gate's sphere.
    static let metersPerDegree = Geodesy.earthRadiusMeters * .pi / 180

    static func fix(seconds: Double, northMeters: Double, accuracy: Double? = 5) -> Location {
        var rng = SplitMix64(seed: UInt64(seconds * 1000))
        var ids = UUIDv7Generator()
        let millis = Int64((seconds * 1000).rounded())
        return Location(
            id: ids.next(atUnixMillis: 1_750_000_000_000 + millis, using: &rng),
            latitude: origin.latitude + northMeters / metersPerDegree, longitude: origin.longitude,
            timestamp: 1_750_000_000_000 + millis, accuracy: accuracy)!
    }

    static func admitted(_ verdict: Gate.Verdict) -> Location? {
        if case .admitted(let fix) = verdict { return fix }
        return nil
    }

    @Test("the first fix after start passes, however close or soon")
    func firstFixPasses() {
        var gate = Gate(minTimeMillis: 30_000, minDistanceMeters: 100)
        #expect(Self.admitted(gate.admit(Self.fix(seconds: 0, northMeters: 0))) != nil)
        gate.reset()
        #expect(Self.admitted(gate.admit(Self.fix(seconds: 1, northMeters: 1))) != nil)
    }

    @Test(
        "a fix passes at exactly minTime and minDistance, and not a hair before either",
        arguments: [
            (30.0, 100.5, true), (29.999, 100.5, false), (30.0, 99.5, false), (120, 1000, true),
        ])
    func boundaries(seconds: Double, meters: Double, passes: Bool) {
        var gate = Gate(minTimeMillis: 30_000, minDistanceMeters: 100)
        _ = gate.admit(Self.fix(seconds: 0, northMeters: 0))
        let verdict = gate.admit(Self.fix(seconds: seconds, northMeters: meters))
        #expect((Self.admitted(verdict) != nil) == passes)
    }

    @Test("time AND distance: passing one side alone is not enough")
    func bothSides() {
        var gate = Gate(minTimeMillis: 30_000, minDistanceMeters: 100)
        _ = gate.admit(Self.fix(seconds: 0, northMeters: 0))
        #expect(gate.admit(Self.fix(seconds: 10, northMeters: 500)) == .rejected(.tooSoon))
        #expect(gate.admit(Self.fix(seconds: 600, northMeters: 50)) == .rejected(.tooClose))
    }

    @Test("0 disables a side of the gate")
    func zeroDisables() {
        var noTime = Gate(minTimeMillis: 0, minDistanceMeters: 100)
        _ = noTime.admit(Self.fix(seconds: 0, northMeters: 0))
        #expect(Self.admitted(noTime.admit(Self.fix(seconds: 0.001, northMeters: 101))) != nil)
        var noDistance = Gate(minTimeMillis: 30_000, minDistanceMeters: 0)
        _ = noDistance.admit(Self.fix(seconds: 0, northMeters: 0))
        #expect(Self.admitted(noDistance.admit(Self.fix(seconds: 30, northMeters: 0))) != nil)
        var open = Gate(minTimeMillis: 0, minDistanceMeters: 0)
        for second in 0..<5 {
            #expect(Self.admitted(open.admit(Self.fix(seconds: Double(second), northMeters: 0))) != nil)
        }
    }

    @Test("a fix older than the last admitted one is rejected, even with the gate open")
    func outOfOrder() {
        var gate = Gate(minTimeMillis: 0, minDistanceMeters: 0)
        _ = gate.admit(Self.fix(seconds: 100, northMeters: 0))
        #expect(gate.admit(Self.fix(seconds: 99.999, northMeters: 5000)) == .rejected(.outOfOrder))
    }

    @Test("rejected fixes do not move the reference point: distance counts from the last admitted fix")
    func referenceIsLastAdmitted() {
        var gate = Gate(minTimeMillis: 0, minDistanceMeters: 100)
        _ = gate.admit(Self.fix(seconds: 0, northMeters: 0))
        #expect(gate.admit(Self.fix(seconds: 1, northMeters: 60)) == .rejected(.tooClose))
        #expect(Self.admitted(gate.admit(Self.fix(seconds: 2, northMeters: 120))) != nil)
        #expect(gate.admit(Self.fix(seconds: 3, northMeters: 180)) == .rejected(.tooClose))
    }

    @Test(
        "quality: low_accuracy above 100 m, good at exactly 100 m, none when unreported",
        arguments: [
            (Double?(100.0001), Quality?.some(.lowAccuracy)), (100, nil), (nil, nil), (5, nil),
        ])
    func lowAccuracy(accuracy: Double?, quality: Quality?) {
        var gate = Gate(minTimeMillis: 0, minDistanceMeters: 0)
        #expect(Self.admitted(gate.admit(Self.fix(seconds: 0, northMeters: 0, accuracy: accuracy)))?.quality == quality)
    }

    @Test(
        "quality: implausible_speed above 300 m/s from the last admitted fix, over low_accuracy",
        arguments: [
            (10.0, 3010.0, Quality?.some(.implausibleSpeed)), (10, 2990, nil), (0.5, 200, .implausibleSpeed),
        ])
    func implausibleSpeed(seconds: Double, meters: Double, quality: Quality?) {
        var gate = Gate(minTimeMillis: 0, minDistanceMeters: 0)
        _ = gate.admit(Self.fix(seconds: 0, northMeters: 0))
        let verdict = gate.admit(Self.fix(seconds: seconds, northMeters: meters, accuracy: 500))
        #expect(Self.admitted(verdict)?.quality == (quality ?? .lowAccuracy))
    }

    @Test("implausible_speed is never set on the first fix, nor when no time passed")
    func speedNeedsElapsedTime() {
        var gate = Gate(minTimeMillis: 0, minDistanceMeters: 0)
        #expect(Self.admitted(gate.admit(Self.fix(seconds: 0, northMeters: 0)))?.quality == nil)
        #expect(Self.admitted(gate.admit(Self.fix(seconds: 0, northMeters: 10_000)))?.quality == nil)
    }

    @Test(
        "presets set the gate; overrides win, and 0 overrides disable",
        arguments: [
            (Preset.saver, 60_000 as Int64, 150.0), (.balanced, 30_000, 100), (.precision, 10_000, 30),
        ])
    func presets(preset: Preset, millis: Int64, meters: Double) {
        #expect(BeekonConfig(preset: preset).gate == Gate(minTimeMillis: millis, minDistanceMeters: meters))
        let overridden = BeekonConfig(
            preset: preset, minTimeBetweenLocationsSeconds: 0, minDistanceBetweenLocationsMeters: 5)
        #expect(overridden.gate == Gate(minTimeMillis: 0, minDistanceMeters: 5))
    }

    @Test("haversine on a 6,371 km sphere: one degree of latitude is 111,195 m")
    func haversine() {
        let meters = Geodesy.distanceMeters(fromLatitude: 0, longitude: 0, toLatitude: 1, longitude: 0)
        #expect(abs(meters - 111_194.93) < 0.01)
        #expect(Geodesy.distanceMeters(fromLatitude: 10, longitude: 20, toLatitude: 10, longitude: 20) == 0)
    }
}
