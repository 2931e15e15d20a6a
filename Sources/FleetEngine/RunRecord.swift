import BeekonDevice
import FleetDescription

/// What a run's report carries so that `report merge` can put the reports of a fleet's shards
/// (`run --shard I/N`) back together exactly: the run's identity, its thresholds and its whole
/// metrics (histograms and history rows included, so percentiles are the whole fleet's, not an
/// average of the shards').
public struct RunRecord: Sendable, Codable {
    /// The form of the record this build writes; `report merge` and `report compare` read only
    /// this one (2: faults and drains carry their source; 3: history rows carry the server's
    /// latency).
    public static let currentFormat = 3

    public var format = RunRecord.currentFormat
    /// The part of the fleet the run ran; `Shard.whole` for a run of the whole fleet.
    public var shard: Shard
    public var name: String
    public var seed: UInt64
    /// Virtual Unix ms.
    public var startedAt: Int64
    public var virtualNow: Int64
    public var groups: [String]
    public var thresholds: ThresholdSet
    public var metrics: FleetMetrics
    /// Devices by state, per group (the metrics count them for the fleet only).
    public var devicesByGroup: [String: [DeviceState: Int]]
    /// What ended the run; nil while it runs.
    public var end: RunEnd?
    /// The `abortOnFail` threshold that stopped it.
    public var abortedBy: String?
    /// Duplicates the in-process receiver saw; nil with another server.
    public var receiverDuplicates: FixAccount.Resent?
    /// Answers took modelled time at the end (`FleetSnapshot.deterministic`), which says what the
    /// upload latency means; nil in an older record, or when merged shards differed.
    public var deterministic: Bool?

    /// The record of the run `snapshot` shows, ended by `end`.
    public init(
        _ snapshot: FleetSnapshot, shard: Shard, end: RunEnd?, abortedBy: String?,
        receiverDuplicates: FixAccount.Resent? = nil
    ) {
        self.receiverDuplicates = receiverDuplicates
        self.shard = shard
        name = snapshot.name
        seed = snapshot.seed
        startedAt = snapshot.startedAt
        virtualNow = snapshot.virtualNow
        groups = snapshot.groups
        thresholds = snapshot.thresholds
        metrics = snapshot.metrics
        devicesByGroup = snapshot.devicesByGroup
        self.end = end
        self.abortedBy = abortedBy
        deterministic = snapshot.deterministic
    }

    /// The fleet as a snapshot without devices: what the report, CSV and HTML pages read.
    public var snapshot: FleetSnapshot {
        var snapshot = FleetSnapshot()
        snapshot.name = name
        snapshot.seed = seed
        snapshot.startedAt = startedAt
        snapshot.virtualNow = virtualNow
        snapshot.groups = groups
        snapshot.thresholds = thresholds
        snapshot.metrics = metrics
        snapshot.deterministic = deterministic ?? false
        return snapshot
    }

    /// The shards' records as the whole fleet's (`FleetMetrics.merged`), each with the name it is
    /// known by (its file). Refused unless they are every shard of one run, each once: the same
    /// fleet name, seed, start, groups and thresholds, and shard indexes 0 to N − 1 of one N.
    public static func merged(_ records: [(name: String, record: RunRecord)]) throws(RunRecordProblem) -> RunRecord {
        guard let (firstName, first) = records.first else {
            throw RunRecordProblem("no report to merge")
        }
        let count = first.shard.count
        var byIndex: [Int: String] = [:]
        for (name, record) in records {
            func differs(_ what: String, _ mine: String, _ theirs: String) -> RunRecordProblem {
                RunRecordProblem(
                    "\(name) is not a shard of the run \(firstName) is: \(what) \(mine) "
                        + "where \(firstName) has \(theirs)"
                )
            }
            if record.shard.count != count {
                throw differs("shard count", "\(record.shard.count)", "\(count)")
            }
            if record.name != first.name { throw differs("fleet name", "\"\(record.name)\"", "\"\(first.name)\"") }
            if record.seed != first.seed { throw differs("seed", "\(record.seed)", "\(first.seed)") }
            if record.startedAt != first.startedAt {
                throw differs(
                    "virtual start", Timestamp.text(unixMillis: record.startedAt),
                    Timestamp.text(unixMillis: first.startedAt))
            }
            if record.groups != first.groups {
                throw differs("groups", record.groups.description, first.groups.description)
            }
            if record.thresholds != first.thresholds {
                throw differs(
                    "thresholds", record.thresholds.thresholds.map(\.expression).description,
                    first.thresholds.thresholds.map(\.expression).description)
            }
            if let other = byIndex[record.shard.index] {
                throw RunRecordProblem("\(other) and \(name) are both shard \(record.shard)")
            }
            byIndex[record.shard.index] = name
        }
        let missing = (0..<count).filter { byIndex[$0] == nil }
        guard missing.isEmpty else {
            throw RunRecordProblem(
                "shard\(missing.count == 1 ? "" : "s") "
                    + missing.prefix(10).map { "\($0)/\(count)" }.joined(separator: ", ")
                    + (missing.count > 10 ? " and \(missing.count - 10) more" : "")
                    + " of the run \(firstName) is part of \(missing.count == 1 ? "is" : "are") missing: "
                    + "give every shard's report")
        }
        var whole = first
        whole.shard = .whole
        whole.metrics = .merged(records.map(\.record.metrics))
        whole.virtualNow = records.map(\.record.virtualNow).min() ?? first.virtualNow
        whole.devicesByGroup = [:]
        for (_, record) in records {
            for (group, states) in record.devicesByGroup {
                whole.devicesByGroup[group, default: [:]].merge(states, uniquingKeysWith: +)
            }
        }
        // One shard's abort stopped that shard only; the merged run says so and fails as that shard did.
        whole.abortedBy = records.lazy.compactMap(\.record.abortedBy).first
        // Each shard's own receiver saw its devices' duplicates; with any other server, none is known.
        let receivers = records.compactMap(\.record.receiverDuplicates)
        whole.receiverDuplicates =
            receivers.count == records.count
            ? FixAccount.Resent(
                batches: receivers.reduce(0) { $0 + $1.batches }, fixes: receivers.reduce(0) { $0 + $1.fixes })
            : nil
        let timings = Set(records.map(\.record.deterministic))
        whole.deterministic = timings.count == 1 ? first.deterministic : nil
        let ends = Set(records.map(\.record.end))
        whole.end = ends.count == 1 ? first.end : .stopped
        return whole
    }
}
