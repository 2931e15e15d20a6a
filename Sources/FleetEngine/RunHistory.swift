/// The run over time, for the report's history rows and charts: per 10 virtual seconds (coarser
/// for long runs, below), what happened with its own timestamp, so the rows are the same
/// whatever order devices ran in (max warp's lookahead runs them out of order).
///
/// At most `maxRows` rows are kept: past them, neighbouring rows are merged and the row width
/// doubles (10 s, 20 s, 40 s, …), so a year-long run keeps a few MB, not gigabytes.
public struct RunHistory: Sendable, Codable {
    /// One row: what happened in `[start, start + width)`.
    public struct Row: Sendable, Hashable, Codable {
        /// Uploads heard, by outcome.
        public var outcomes: [TransferOutcome: Int] = [:]
        /// Their latency, virtual ms.
        public var latency = CoarseHistogram()
        /// Fixes admitted, and acknowledged.
        public var admitted = 0
        public var acknowledged = 0
        /// How the fixes pending changed over the row (the backlog at a row's end is the sum of
        /// every change up to it, with what was carried over).
        public var pendingChange = 0
        /// Age of the fixes acknowledged in it, virtual ms.
        public var ageAtAcknowledgement = CoarseHistogram()
        /// The server's own time to answer its uploads, real ms at any warp (the uploads it
        /// answered, heard in time or not).
        public var serverLatency = CoarseHistogram()

        mutating func merge(_ other: Row) {
            for (outcome, count) in other.outcomes { outcomes[outcome, default: 0] += count }
            latency.merge(other.latency)
            admitted += other.admitted
            acknowledged += other.acknowledged
            pendingChange += other.pendingChange
            ageAtAcknowledgement.merge(other.ageAtAcknowledgement)
            serverLatency.merge(other.serverLatency)
        }
    }

    /// The first row's start, virtual Unix ms.
    public private(set) var start: Int64
    /// How long each row lasts, virtual ms: 10 s, doubled each time the rows are merged.
    public private(set) var widthMillis: Int64 = 10_000
    /// The rows, oldest first; row i covers `start + i × width`.
    public private(set) var rows: [Row] = []
    /// Fixes pending before the first row (carried over from an earlier run).
    public internal(set) var pendingAtStart = 0

    /// Most rows kept before they are merged in pairs.
    public static let maxRows = 8_640

    public init(start: Int64 = 0) {
        self.start = start
    }

    /// The row an instant falls in, made if needed; nil before the start.
    private mutating func rowIndex(_ instant: Int64) -> Int? {
        guard instant >= start else { return nil }
        var index = Int((instant - start) / widthMillis)
        while index >= Self.maxRows {
            halve()
            index = Int((instant - start) / widthMillis)
        }
        if index >= rows.count {
            rows.append(contentsOf: repeatElement(Row(), count: index - rows.count + 1))
        }
        return index
    }

    /// Merges neighbouring rows: half as many, twice as wide.
    private mutating func halve() {
        var merged: [Row] = []
        merged.reserveCapacity(rows.count / 2 + 1)
        var index = 0
        while index < rows.count {
            var row = rows[index]
            if index + 1 < rows.count { row.merge(rows[index + 1]) }
            merged.append(row)
            index += 2
        }
        rows = merged
        widthMillis *= 2
    }

    package mutating func recordUpload(
        _ outcome: TransferOutcome, latencyMillis: Double, serverMillis: Double?, at instant: Int64
    ) {
        guard let index = rowIndex(instant) else { return }
        rows[index].outcomes[outcome, default: 0] += 1
        rows[index].latency.record(latencyMillis)
        if let serverMillis { rows[index].serverLatency.record(serverMillis) }
    }

    package mutating func recordLedgerChange(admitted: Int, acknowledged: Int, pending: Int, at instant: Int64) {
        guard let index = rowIndex(instant) else {
            pendingAtStart += pending
            return
        }
        rows[index].admitted += admitted
        rows[index].acknowledged += acknowledged
        rows[index].pendingChange += pending
    }

    package mutating func recordAge(_ millis: Double, at instant: Int64) {
        guard let index = rowIndex(instant) else { return }
        rows[index].ageAtAcknowledgement.record(millis)
    }

    /// Adds another part of the fleet's history over the same clock (another shard's): rows of
    /// the same instants add up, at the wider of the two widths.
    public mutating func merge(_ other: RunHistory) {
        var other = other
        while other.widthMillis < widthMillis { other.halve() }
        while widthMillis < other.widthMillis { halve() }
        pendingAtStart += other.pendingAtStart
        for (offset, row) in other.rows.enumerated() {
            guard let index = rowIndex(other.start + Int64(offset) * other.widthMillis) else {
                pendingAtStart += row.pendingChange
                continue
            }
            rows[index].merge(row)
        }
    }

    /// The fixes pending at each row's end.
    public var backlog: [Int] {
        var pending = pendingAtStart
        return rows.map { row in
            pending += row.pendingChange
            return pending
        }
    }
}
