import BeekonDevice
import Testing

@testable import FleetRoutes

@Suite("OS provider")
struct OSProviderTests {
    static let truth = TruePosition(latitude: 48.137, longitude: 11.575, speed: 1.4, bearing: 90, altitude: 520)

    @Test("about 68% of fixes fall within the accuracy they report", arguments: AccuracyRequest.allCases)
    func noiseMatchesAccuracy(request: AccuracyRequest) throws {
        var provider = OSProvider(profile: .clean, seed: 11)
        var within = 0
        let samples = 20_000
        for index in 0..<samples {
            let delivered = provider.fix(at: Int64(index) * 1000, truth: Self.truth, request: request)
            let fix = try #require(delivered)
            let error = Geodesy.distanceMeters(
                fromLatitude: Self.truth.latitude, longitude: Self.truth.longitude, toLatitude: fix.latitude,
                longitude: fix.longitude)
            if error <= fix.accuracy! + 0.05 { within += 1 }
            let range = ProviderProfile.accuracyRange(request)
            #expect(fix.accuracy! >= range.lowerBound - 0.05 && fix.accuracy! <= range.upperBound + 0.05)
        }
        let share = Double(within) / Double(samples)
        #expect(abs(share - 0.68) < 0.02, "share within accuracy was \(share)")
    }

    @Test("cadence by accuracy request: high 1 s, balanced 5 s, low 30 s")
    func cadence() {
        #expect(ProviderProfile.cadenceMillis(.high) == 1000)
        #expect(ProviderProfile.cadenceMillis(.balanced) == 5000)
        #expect(ProviderProfile.cadenceMillis(.low) == 30_000)
    }

    @Test("the same seed gives the same fixes")
    func reproducible() {
        func run() -> [OSFix?] {
            var provider = OSProvider(seed: 99)
            return (0..<2000).map { provider.fix(at: Int64($0) * 1000, truth: Self.truth, request: .high) }
        }
        #expect(run() == run())
    }

    @Test("tunnels leave gaps of 20–120 s at about the configured rate while moving")
    func gaps() {
        var profile = ProviderProfile()
        profile.outlierProbability = 0
        profile.gapsPerHour = 6
        var provider = OSProvider(profile: profile, seed: 3)
        var gaps: [Int] = []
        var run = 0
        for second in 0..<(20 * 3600) {
            if provider.fix(at: Int64(second) * 1000, truth: Self.truth, request: .high) == nil {
                run += 1
            } else if run > 0 {
                gaps.append(run)
                run = 0
            }
        }
        #expect((90...150).contains(gaps.count), "gaps: \(gaps.count)")
        #expect(gaps.allSatisfy { (19...121).contains($0) })
    }

    @Test(
        """
        speed and bearing come from the motion; standing still \
        reports speed 0 and no bearing; mock only when configured
        """
    )
    func motionFields() throws {
        var provider = OSProvider(profile: .clean, seed: 5)
        let first = provider.fix(at: 0, truth: Self.truth, request: .high)
        let moving = try #require(first)
        #expect(abs(moving.speed! - 1.4) < 1.5)
        #expect(moving.bearing != nil)
        #expect(moving.altitude != nil)
        #expect(!moving.isMock)
        var standing = Self.truth
        standing.speed = 0
        standing.altitude = nil
        let second = provider.fix(at: 1000, truth: standing, request: .high)
        let still = try #require(second)
        #expect(still.speed == 0)
        #expect(still.bearing == nil)
        #expect(still.altitude == nil)
        var mockProfile = ProviderProfile.clean
        mockProfile.isMock = true
        var mock = OSProvider(profile: mockProfile, seed: 5)
        #expect(mock.fix(at: 0, truth: Self.truth, request: .low)?.isMock == true)
    }
}
