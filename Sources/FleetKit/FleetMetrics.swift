import Foundation

/// What a run has done so far, for the progress line, the summary and (later) the admin API.
public struct FleetMetrics: Sendable, Hashable {
    /// Virtual time, Unix ms.
    public var virtualNow: Int64 = 0
    /// Real seconds the fleet has run, from the clock's start (store preparation and the final
    /// drain not counted).
    public var realSeconds = 0.0
    /// Devices spawned.
    public var devices = 0
    /// Devices by tracking state (`idle`, `tracking`, `paused(permissionRevoked)`, …, and `dead`).
    public var devicesByState: [String: Int] = [:]
    /// Fixes admitted and stored.
    public var fixesStored = 0
    /// Geofence events stored.
    public var geofenceEvents = 0
    /// Upload POSTs sent.
    public var batchesSent = 0
    /// Fixes in batches the server acknowledged.
    public var fixesUploaded = 0
    /// Upload outcomes: the status code as text (`200`), the network failure (`timeout`), or
    /// `offline` (the device's network went down while it was out).
    public var batchesByOutcome: [String: Int] = [:]
    /// Token refreshes sent.
    public var refreshesSent = 0
    /// Token refresh outcomes, labelled as upload outcomes are.
    public var refreshesByOutcome: [String: Int] = [:]
    /// Store errors by cause (`StoreError.Kind`'s raw value: `full`, `tooManyOpenFiles`, …);
    /// logged on standard error at most once a minute per cause.
    public var storeErrorsByCause: [String: Int] = [:]
    /// Fixes admitted whose insert failed, by the store error's cause: never stored, never sent.
    public var fixesLostByCause: [String: Int] = [:]
    /// Geofence events whose insert failed, by cause.
    public var geofenceEventsLostByCause: [String: Int] = [:]
    /// Store errors of every cause.
    public var storeErrors: Int { storeErrorsByCause.values.reduce(0, +) }
    /// Upload latency as the device lived it: virtual ms from send to the outcome it heard
    /// (injected latency and timeouts included).
    public var latency = LatencyHistogram()
    /// How long the server took to answer, wall ms: every answer it gave to an upload or token
    /// refresh, in time for the device or not.
    public var serverLatency = LatencyHistogram()
    /// Answers that took more than half the SDK's timeout once the warp is applied: a sign the
    /// warp, not the server, decides what the devices hear (see `slowestAnswerMillis`).
    public var slowAnswers = 0
    /// The slowest such answer, wall ms.
    public var slowestAnswerMillis = 0.0
    /// Server answers that came after the device's timeout had already ended its transfer.
    public var answersAfterTimeout = 0
    /// Ends of real requests (the server's answer, or a transport failure) that the device never
    /// heard because its network went down first and it heard `offline`: one per such transfer,
    /// whether the end came after that instant or before it, held for a later one.
    public var answersAfterOffline = 0
    /// Virtual ms the clock stood still waiting for real answers (modelled transfer timing).
    public var clockHeldMillis: Int64 = 0
    /// Every request the devices sent, as one digest: two runs whose devices each sent the same
    /// requests in the same order have the same one.
    public var sent = RequestDigest()
    /// How late timers fired, in real ms.
    public var timerLateness = LatencyHistogram()
    /// Virtual ms the clock dropped because the loop fell behind it (more timers than the
    /// machine fires at this warp), or ran ahead of a pause or a warp change: the fleet ran
    /// slower than its warp by this much.
    public var clockLagDroppedMillis: Int64 = 0

    /// Fixes stored and not yet acknowledged, summed over devices.
    public var pending = 0

    /// An empty record.
    public init() {}
}

/// Durations in log-spaced buckets (about 4% wide): constant memory, percentiles to ±4%.
public struct LatencyHistogram: Sendable, Hashable {
    /// Buckets of 1/24 octave from 0.01 ms: the last starts near 17 virtual minutes, past any
    /// answer the SDK waits for (its timeout is 30 s) or a latency fault can add.
    static let bucketCount = 640
    private var buckets = [Int](repeating: 0, count: bucketCount)
    /// Where `count(atOrBelow:)` is exact, ms: the bounds `/metrics` reports. Prometheus's `le`
    /// is inclusive, so a timeout heard at exactly 30 s is within 30 s, and a modelled 100 ms
    /// answer within 0.1 s, which a log bucket straddling the bound cannot say.
    public static let exactBoundsMillis: [Double] = [
        1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000,
    ]
    /// Records in (previous bound, bound], by bound; the last slot holds those past every bound.
    private var withinBounds = [Int](repeating: 0, count: exactBoundsMillis.count + 1)
    /// How many durations were recorded.
    public private(set) var count = 0
    /// The largest recorded, ms.
    public private(set) var max = 0.0
    /// The sum of the recorded durations, ms.
    public private(set) var sum = 0.0

    /// An empty histogram.
    public init() {}

    /// Records a duration in milliseconds.
    public mutating func record(_ millis: Double) {
        let value = Swift.max(0, millis)
        buckets[Self.bucket(value)] += 1
        withinBounds[Self.exactBoundsMillis.firstIndex { value <= $0 } ?? Self.exactBoundsMillis.count] += 1
        count += 1
        sum += value
        max = Swift.max(max, value)
    }

    /// Adds the records of another histogram.
    public mutating func merge(_ other: LatencyHistogram) {
        guard other.count > 0 else { return }
        for index in buckets.indices { buckets[index] += other.buckets[index] }
        for index in withinBounds.indices { withinBounds[index] += other.withinBounds[index] }
        count += other.count
        sum += other.sum
        max = Swift.max(max, other.max)
    }

    /// How many records are at most `millis`: exactly at `exactBoundsMillis`, elsewhere to the
    /// bucket's width (a record in the bucket that straddles `millis` is left out): a cumulative
    /// bucket of a Prometheus histogram.
    public func count(atOrBelow millis: Double) -> Int {
        guard millis >= 0 else { return 0 }
        if let bound = Self.exactBoundsMillis.firstIndex(of: millis) { return withinBounds[0...bound].reduce(0, +) }
        let last = Self.bucket(millis)
        var total = 0
        for index in 0..<last where Self.upperBound(index) <= millis { total += buckets[index] }
        if Self.upperBound(last) <= millis || last == Self.bucketCount - 1 { total += buckets[last] }
        return total
    }

    /// The duration below which `fraction` (0…1) of records fall, ms; 0 when empty.
    public func percentile(_ fraction: Double) -> Double {
        guard count > 0 else { return 0 }
        let rank = Int((fraction * Double(count)).rounded(.up))
        var seen = 0
        for (index, bucketCount) in buckets.enumerated() {
            seen += bucketCount
            // The last bucket is open-ended: its records are at most `max`.
            if seen >= Swift.max(rank, 1) {
                return index == Self.bucketCount - 1 ? max : Swift.min(Self.upperBound(index), max)
            }
        }
        return max
    }

    static func bucket(_ millis: Double) -> Int {
        guard millis >= 0.01 else { return 0 }
        return Swift.min(bucketCount - 1, Int((log2(millis / 0.01) * 24).rounded(.down)) + 1)
    }

    static func upperBound(_ index: Int) -> Double {
        index == 0 ? 0.01 : 0.01 * exp2(Double(index) / 24)
    }
}
