/// Upload outcomes (`200`, `503`, `timeout`, `offline`) as the devices heard them, with their
/// latency: over the whole run, and per real second for the last few seconds (buckets of one
/// second that rotate), so the admin API can say both what happened and what is happening.
public struct UploadStats: Sendable {
    /// How often one outcome happened, and how long those uploads took.
    public struct Tally: Sendable, Codable {
        /// How many uploads ended so.
        public var count = 0
        /// Their latency as the devices lived it: virtual ms from send to outcome.
        public var latency = LatencyHistogram()
        /// How long the server took to answer them, wall ms (those it answered).
        public var serverLatency = LatencyHistogram()

        /// No uploads of this outcome yet.
        public init() {}

        /// Adds another tally of the same outcome.
        public mutating func merge(_ other: Tally) {
            count += other.count
            latency.merge(other.latency)
            serverLatency.merge(other.serverLatency)
        }
    }

    /// How many one-second buckets are kept.
    public static let windowSeconds = 10

    /// Outcomes over the whole run: the fleet's one count of them.
    public private(set) var overall: [TransferOutcome: Tally] = [:]
    /// The same since the statistics were last reset (`resetStatistics`), for the admin API's
    /// and the page's table; `overall` (thresholds, `/metrics`' counters) never resets.
    public private(set) var sinceReset: [TransferOutcome: Tally] = [:]
    /// When they were last reset: the real second (monotonic clock) and the virtual instant;
    /// nil before the first reset.
    public private(set) var resetAt: (realSecond: UInt64, virtual: Int64)?
    /// The last seconds' outcomes, oldest first, by real second (monotonic clock).
    private var seconds: [(second: UInt64, tallies: [TransferOutcome: Tally])] = []

    /// No uploads yet.
    public init() {}

    /// Counts one upload's end, with its latency, in the whole run and in its real second.
    public mutating func record(
        _ outcome: TransferOutcome, latencyMillis: Double, serverMillis: Double?, realNanos: UInt64
    ) {
        overall[outcome, default: Tally()].count += 1
        overall[outcome]!.latency.record(latencyMillis)
        if let serverMillis { overall[outcome]!.serverLatency.record(serverMillis) }
        sinceReset[outcome, default: Tally()].count += 1
        sinceReset[outcome]!.latency.record(latencyMillis)
        if let serverMillis { sinceReset[outcome]!.serverLatency.record(serverMillis) }
        let second = realNanos / 1_000_000_000
        if seconds.last?.second != second {
            seconds.append((second, [:]))
            // One bucket more than the window, so the last whole second is always there.
            seconds.removeAll { $0.second + UInt64(Self.windowSeconds) < second }
        }
        seconds[seconds.count - 1].tallies[outcome, default: Tally()].count += 1
        seconds[seconds.count - 1].tallies[outcome]!.latency.record(latencyMillis)
        if let serverMillis { seconds[seconds.count - 1].tallies[outcome]!.serverLatency.record(serverMillis) }
    }

    /// Starts the statistics view over: `sinceReset` and the recent seconds are emptied.
    public mutating func resetStatistics(realNanos: UInt64, virtual: Int64) {
        sinceReset = [:]
        seconds = []
        resetAt = (realNanos / 1_000_000_000, virtual)
    }

    /// Adds another part of the fleet's uploads (another shard's, on the same real clock): its
    /// tallies, and its recent seconds to those of the same second. The reset is this one's.
    public mutating func merge(_ other: UploadStats) {
        for (outcome, tally) in other.overall { overall[outcome, default: Tally()].merge(tally) }
        for (outcome, tally) in other.sinceReset { sinceReset[outcome, default: Tally()].merge(tally) }
        for bucket in other.seconds {
            if let index = seconds.firstIndex(where: { $0.second == bucket.second }) {
                for (outcome, tally) in bucket.tallies {
                    seconds[index].tallies[outcome, default: Tally()].merge(tally)
                }
            } else {
                seconds.append(bucket)
            }
        }
        seconds.sort { $0.second < $1.second }
        if let last = seconds.last?.second {
            seconds.removeAll { $0.second + UInt64(Self.windowSeconds) < last }
        }
    }

    /// The outcomes of the real seconds `first...last` (as `realNanos / 1e9`).
    public func window(from first: UInt64, through last: UInt64) -> [TransferOutcome: Tally] {
        var merged: [TransferOutcome: Tally] = [:]
        for bucket in seconds where bucket.second >= first && bucket.second <= last {
            for (outcome, tally) in bucket.tallies {
                merged[outcome, default: Tally()].merge(tally)
            }
        }
        return merged
    }
}

/// As a shard's report carries it for `report merge`: the whole run's tallies only (the recent
/// seconds and the reset belong to the live view of one process).
extension UploadStats: Codable {
    private enum CodingKeys: String, CodingKey {
        case overall
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(overall, forKey: .overall)
    }

    public init(from decoder: any Decoder) throws {
        self.init()
        overall = try decoder.container(keyedBy: CodingKeys.self).decode(
            [TransferOutcome: Tally].self, forKey: .overall)
        sinceReset = overall
    }
}
