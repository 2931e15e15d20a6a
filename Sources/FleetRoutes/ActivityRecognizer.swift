import BeekonDevice

/// The emulated OS activity recognizer of one device (Android's Activity Recognition Transition
/// API, iOS's `CMMotionActivityManager`): classifies the true motion into an `Activity` and
/// reports a change only once the new activity has held for a debounce, as the platforms do.
///
/// Pure and reproducible: its randomness (each transition's debounce, the confidence's jitter)
/// comes from its own seeded stream, so it shifts no other draw of the device.
public struct ActivityRecognizer: Sendable {
    /// Speed bands (m/s, lower bound inclusive), the classification without a declared mode:
    /// standing below 0.3, walking to 2.2 (a brisk walk), running to 4.5 (a sprint is ~7 but
    /// jogging is 2.5–4), cycling to 8 (urban cycling 4–7), automotive above.
    public static let bands: [(from: Double, activity: Activity)] = [
        (0, .stationary), (0.3, .walking), (2.2, .running), (4.5, .cycling), (8, .automotive),
    ]

    /// The debounce (seconds) before a first activity or an ordinary change is reported: the
    /// platforms report transitions some 10–30 s after they happen.
    public static let holdSeconds: ClosedRange<Double> = 10...30
    /// Before running is reported: only sustained running, so a walker's short burst stays walking.
    public static let runningHoldSeconds: ClosedRange<Double> = 30...45
    /// Before automotive becomes stationary: a car or bus at a light or a stop stays automotive
    /// (lights run 30–120 s; iOS keeps `automotive` while a vehicle stands).
    public static let vehicleStopHoldSeconds: ClosedRange<Double> = 120...240
    /// Before automotive becomes another moving activity: a crawl in traffic is not a walk.
    public static let vehicleExitHoldSeconds: ClosedRange<Double> = 60...120
    /// Evidence older than this (ms) is forgotten: after a longer silence (a tunnel, sparse
    /// fixes, a dead app) the recognizer starts again from `unknown`.
    public static let staleAfterMillis: Int64 = 90_000
    /// How long (ms) a reported activity takes to go from 50 to full confidence once it holds.
    public static let confidenceRampMillis: Int64 = 60_000
    /// The confidence's jitter, ± points (the platforms' confidences wobble from one reading to
    /// the next).
    public static let confidenceJitter = 5

    private var rng: SplitMix64
    private var reported = Activity.unknown
    /// When the reported activity was first reported (or the evidence started, for unknown).
    private var reportedSince: Int64 = 0
    /// The activity the evidence shows when it differs from the reported one, since when, and the
    /// debounce it must hold for.
    private var candidate: (activity: Activity, since: Int64, holdMillis: Int64)?
    private var lastObserved: Int64?

    /// A recognizer whose randomness is fixed by `seed`.
    public init(seed: UInt64) {
        rng = SplitMix64(seed: seed)
    }

    /// The activity the truth shows at one instant: the declared mode while moving, else the
    /// speed's band.
    public static func classify(speed: Double, mode: Pace?) -> Activity {
        guard speed >= bands[1].from else { return .stationary }
        if let mode {
            switch mode {
            case .walk: return .walking
            case .run: return .running
            case .cycle: return .cycling
            case .drive: return .automotive
            }
        }
        return bands.last { speed >= $0.from }!.activity
    }

    /// Takes the truth at `now` (instants non-decreasing) and says what the recognizer reports.
    public mutating func observe(at now: Int64, truth: TruePosition) -> ActivityReading {
        if let last = lastObserved, now - last > Self.staleAfterMillis {
            // Too long without evidence: what it knew is stale.
            reported = .unknown
            reportedSince = now
            candidate = nil
        } else if lastObserved == nil {
            reportedSince = now
        }
        lastObserved = now
        let seen = Self.classify(speed: truth.speed, mode: truth.travelMode)
        if seen == reported {
            candidate = nil
        } else if candidate?.activity != seen {
            candidate = (seen, now, holdMillis(from: reported, to: seen))
        }
        if let change = candidate, now - change.since >= change.holdMillis {
            reported = change.activity
            reportedSince = now
            candidate = nil
        }
        return ActivityReading(activity: reported, confidence: confidence(at: now))
    }

    /// The debounce from one reported activity to another, drawn for this transition.
    private mutating func holdMillis(from: Activity, to: Activity) -> Int64 {
        let range: ClosedRange<Double>
        switch (from, to) {
        case (.unknown, _): range = Self.holdSeconds
        case (.automotive, .stationary): range = Self.vehicleStopHoldSeconds
        case (.automotive, _): range = Self.vehicleExitHoldSeconds
        case (_, .running): range = Self.runningHoldSeconds
        default: range = Self.holdSeconds
        }
        return Int64(Double.random(in: range, using: &rng) * 1000)
    }

    /// 0–100: unknown rises from 10 to 40 (low) as the first evidence holds; a reported activity starts at
    /// 50 and rises to 100 over `confidenceRampMillis`, and falls back towards 50 while contrary
    /// evidence holds; with a little jitter.
    private mutating func confidence(at now: Int64) -> Int {
        let base: Double
        if reported == .unknown {
            let share = candidate.map { Double(now - $0.since) / Double(max($0.holdMillis, 1)) } ?? 0
            base = 10 + 30 * min(share, 1)
        } else {
            let settled = 50 + 50 * min(Double(now - reportedSince) / Double(Self.confidenceRampMillis), 1)
            let doubt = candidate.map { min(Double(now - $0.since) / Double(max($0.holdMillis, 1)), 1) } ?? 0
            base = settled - (settled - 50) * doubt
        }
        let jitter = Int.random(in: -Self.confidenceJitter...Self.confidenceJitter, using: &rng)
        return min(max(Int(base.rounded()) + jitter, 0), 100)
    }
}
