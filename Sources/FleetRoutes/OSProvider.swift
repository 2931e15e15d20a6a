import BeekonDevice
import Foundation

/// The emulated OS location provider of one device: turns true positions into OS fixes with
/// seeded noise that matches the accuracy each fix reports, and occasional gaps and outliers;
/// its activity recognizer labels each fix (the device keeps the label only with `detectActivity`).
///
/// Pure and reproducible: the same seed and the same calls give the same fixes.
public struct OSProvider: Sendable {
    /// The behaviour.
    public var profile: ProviderProfile
    private var rng: SplitMix64
    /// No fix until this instant (a tunnel).
    private var gapUntil: Int64 = .min
    /// When the last fix was asked for, to turn the gap rate into a chance per fix.
    private var lastAsked: Int64?
    /// The OS activity recognizer, on a stream of its own so that it shifts no draw above.
    private var recognizer: ActivityRecognizer
    /// What the recognizer said on the last fix (nil before the first).
    public private(set) var activityReading: ActivityReading?

    /// The key of the recognizer's stream, derived from the provider's seed ("activity").
    static let recognizerStream: UInt64 = 0x6163_7469_7669_7479

    /// Horizontal error per axis for a reported 1σ radial accuracy: with a circular Gaussian,
    /// 68% of fixes fall within `a` when σ per axis is `a / 1.5096`.
    static let radialToAxis = 1.0 / (2 * log(1 / 0.32)).squareRoot()

    /// A provider whose randomness is fixed by `seed`.
    public init(profile: ProviderProfile = ProviderProfile(), seed: UInt64) {
        self.profile = profile
        rng = SplitMix64(seed: seed)
        var recognizerSeed = SplitMix64(seed: seed).derived(Self.recognizerStream)
        recognizer = ActivityRecognizer(seed: recognizerSeed.next())
    }

    /// The fix the OS delivers at `now` for the truth, or nil when it has none (a gap).
    public mutating func fix(at now: Int64, truth: TruePosition, request: AccuracyRequest) -> OSFix? {
        let elapsed = lastAsked.map { max(0, now - $0) } ?? 0
        lastAsked = now
        if now < gapUntil { return nil }
        if truth.speed > 0.5, profile.gapsPerHour > 0 {
            let chance = profile.gapsPerHour * Double(elapsed) / 3_600_000
            if Double.random(in: 0..<1, using: &rng) < chance {
                gapUntil = now + Int64(Double.random(in: profile.gapSeconds, using: &rng) * 1000)
                return nil
            }
        }
        let range = ProviderProfile.accuracyRange(request)
        // Log-uniform: most fixes near the good end, a tail towards the bad one.
        let accuracy = exp(Double.random(in: log(range.lowerBound)...log(range.upperBound), using: &rng))
        var sigma = accuracy * Self.radialToAxis
        if profile.outlierProbability > 0, Double.random(in: 0..<1, using: &rng) < profile.outlierProbability {
            sigma = accuracy * Double.random(in: profile.outlierFactor, using: &rng)
        }
        let north = gaussian() * sigma
        let east = gaussian() * sigma
        let metersPerDegree = Geodesy.earthRadiusMeters * .pi / 180
        let latitude = truth.latitude + north / metersPerDegree
        let longitude = truth.longitude + east / (metersPerDegree * max(cos(truth.latitude * .pi / 180), 1e-6))
        let moving = truth.speed > 0.5
        let speed = max(0, truth.speed + gaussian() * (request == .high ? 0.2 : 0.8))
        let altitude = truth.altitude.map { $0 + gaussian() * accuracy * 1.5 }
        // Fed at each fix only: a silence (a tunnel, sparse fixes) leaves it without evidence.
        let reading = recognizer.observe(at: now, truth: truth)
        activityReading = reading
        return OSFix(
            latitude: min(max(latitude, -90), 90), longitude: Self.wrapLongitude(longitude),
            timestamp: now, accuracy: accuracy.rounded(places: 1),
            speed: moving ? speed.rounded(places: 2) : 0,
            bearing: moving ? Self.wrapBearing(truth.bearing + gaussian() * 5) : nil,
            altitude: altitude.map { $0.rounded(places: 1) },
            activity: reading.activity, isMock: profile.isMock)
    }

    /// A standard normal draw from the provider's stream.
    private mutating func gaussian() -> Double { rng.standardNormal() }

    private static func wrapLongitude(_ value: Double) -> Double {
        var wrapped = (value + 180).truncatingRemainder(dividingBy: 360)
        if wrapped < 0 { wrapped += 360 }
        return wrapped - 180
    }

    private static func wrapBearing(_ value: Double) -> Double {
        var wrapped = value.truncatingRemainder(dividingBy: 360)
        if wrapped < 0 { wrapped += 360 }
        return wrapped >= 360 ? 0 : wrapped
    }
}
