import BeekonDevice

/// How the receiver answers well-formed uploads: scripted failures, latency and hangs, for
/// testing what a client does with each answer.
///
/// Every upload that passes validation is numbered per device and draws one number from a
/// SplitMix64 generator seeded with `seed`, in arrival order: the same seed and the same arrival
/// order give the same answers.
public struct AnswerScript: Sendable, Hashable {
    /// Seeds the generator behind `mix`.
    public var seed: UInt64
    /// Shares of uploads answered otherwise than normally; whatever is left is stored and
    /// answered 200. Percentages add up to at most 100.
    public var mix: [MixEntry]
    /// The first this many uploads of each device (by `install_id`) are answered `failFirstStatus`.
    public var failFirst: Int
    /// The status for the first `failFirst` uploads of each device.
    public var failFirstStatus: Int
    /// What the first `failFirst` uploads of each device get instead of `failFirstStatus`: a hang
    /// or a close (nil: the status).
    public var failFirstOutcome: ScriptedOutcome?
    /// A `Retry-After` value added to every scripted non-2xx answer (e.g. `30`); nil for none.
    public var retryAfter: String?
    /// Milliseconds to wait before every answer on the ingest path (the connection is suspended,
    /// no thread is held).
    public var latencyMillis: Int
    /// How long a hung upload holds its connection without answering before closing it.
    public var hangMillis: Int
    /// Store the upload before a scripted failure, hang or close, as a server whose answer is
    /// lost after it committed (the client retries; dedupe makes that harmless).
    public var storeBeforeFault: Bool

    /// A script; by default every well-formed upload is stored and answered 200 at once.
    public init(
        seed: UInt64 = 0, mix: [MixEntry] = [], failFirst: Int = 0, failFirstStatus: Int = 503,
        retryAfter: String? = nil, latencyMillis: Int = 0, hangMillis: Int = 120_000,
        storeBeforeFault: Bool = false
    ) {
        self.seed = seed
        self.mix = mix
        self.failFirst = failFirst
        self.failFirstStatus = failFirstStatus
        self.failFirstOutcome = nil
        self.retryAfter = retryAfter
        self.latencyMillis = latencyMillis
        self.hangMillis = hangMillis
        self.storeBeforeFault = storeBeforeFault
    }

    /// Checks the ranges, naming the first bad value.
    func validate() throws(IngestReceiverError) {
        func fail(_ message: String) -> IngestReceiverError { IngestReceiverError(.configuration, message) }
        let total = mix.reduce(0) { $0 + $1.percent }
        guard mix.allSatisfy({ $0.percent >= 0 && $0.percent.isFinite }), total <= 100 + 1e-9 else {
            throw fail("the status mix must have non-negative percentages adding up to at most 100 (got \(total))")
        }
        typealias Ranges = IngestReceiverConfiguration.Ranges
        var values: [(String, Int, NumberRange)] = [
            ("fail-first", failFirst, Ranges.count), ("fail-status", failFirstStatus, Ranges.status),
            ("latency-ms", latencyMillis, Ranges.latencyMillis), ("hang-ms", hangMillis, Ranges.hangMillis),
        ]
        for entry in mix {
            if case .status(let status) = entry.outcome { values.append(("mix", status, Ranges.status)) }
        }
        try IngestReceiverConfiguration.check(values)
        if let retryAfter, retryAfter.isEmpty || retryAfter.contains(where: \.isNewline) {
            throw fail("Retry-After must be a non-empty single-line value")
        }
    }

    /// Parses a mix written `ANSWER:PERCENT,…`, e.g. `503:10,429:5,hang:1,close:1`.
    public static func parseMix(_ text: String) throws(IngestReceiverError) -> [MixEntry] {
        var entries: [MixEntry] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: true) {
            let parts = item.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, let outcome = ScriptedOutcome(parts[0].trimmingSpaces),
                let percent = Double(parts[1].trimmingSpaces)
            else {
                throw IngestReceiverError(
                    .configuration,
                    "--mix \"\(text)\": \"\(item)\" should be ANSWER:PERCENT, "
                        + "where ANSWER is a status, hang or close (e.g. 503:10)"
                )
            }
            entries.append(MixEntry(outcome, percent: percent))
        }
        return entries
    }
}

extension Substring {
    /// Without leading and trailing spaces.
    var trimmingSpaces: Substring {
        var text = self
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        return text
    }
}
