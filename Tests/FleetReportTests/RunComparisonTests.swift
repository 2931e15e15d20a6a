import BeekonNet
import FleetDescription
import Foundation
import Testing

@testable import FleetEngine
@testable import FleetReport
@testable import ServerTruth

/// `report compare` and `run --baseline`: two runs' figures side by side, the noise to expect
/// in each change, thresholds judged on the change, and what makes two runs comparable.
@Suite("Run comparison")
struct RunComparisonTests {
    /// A run whose `uploads` all answered 200 but `errors` 503s, the server taking `serverMillis`
    /// (cycled over the uploads), every device heard in 100 virtual ms; `requests` names what was
    /// sent (the same text, the same digest).
    static func record(
        uploads: Int = 1000, errors: Int = 0, serverMillis: [Double] = [10], requests: String = "same",
        seed: UInt64 = 7, startedAt: Int64 = 1_780_000_000_000, deterministic: Bool = true,
        groups: [String] = ["walkers"], minutes: Int64 = 10
    ) -> RunRecord {
        var metrics = FleetMetrics()
        for index in 0..<uploads {
            let server = serverMillis[index % serverMillis.count]
            let outcome: TransferOutcome = index < errors ? .status(503) : .status(200)
            metrics.uploads.record(outcome, latencyMillis: 100, serverMillis: server, realNanos: 0)
            metrics.latency.record(100)
            metrics.serverLatency.record(server)
        }
        metrics.sent.add(
            device: "d0",
            request: OutboundRequest(url: "http://x/ingest", body: Array(requests.utf8), connectionKey: "d0"))
        var snapshot = FleetSnapshot()
        snapshot.name = "couriers"
        snapshot.seed = seed
        snapshot.startedAt = startedAt
        snapshot.virtualNow = startedAt + minutes * 60_000
        snapshot.groups = groups
        snapshot.metrics = metrics
        snapshot.deterministic = deterministic
        return RunRecord(snapshot, shard: .whole, end: .stopped, abortedBy: nil)
    }

    static func compare(
        _ base: RunRecord, _ other: RunRecord, _ thresholds: [String] = [],
        truth: (RunComparison.Truth?, RunComparison.Truth?) = (nil, nil)
    ) throws -> RunComparison {
        RunComparison(
            baseline: .init(file: "base.json", record: base, truth: truth.0),
            candidate: .init(file: "candidate.json", record: other, truth: truth.1),
            thresholds: try thresholds.map { try Threshold.read($0) })
    }

    static func row(_ comparison: RunComparison, _ name: String) throws -> MetricComparison {
        try #require(comparison.rows.first { $0.metric.description == name && $0.group == nil })
    }

    @Test(
        "a change threshold judges the change as its limit is written; an unsigned one the candidate's value",
        arguments: [
            ("server.latency.p50 < +10%", [10.0], [10.5], true),
            ("server.latency.p50 < +10%", [10.0], [12.0], false),
            ("server.latency.p50 <= +2ms", [10.0], [12.0], true),
            ("server.latency.p50 < +1ms", [10.0], [12.0], false),
            ("server.latency.p50 < 11ms", [10.0], [12.0], false),
            ("server.latency.p50 > -10%", [10.0], [9.5], true),
        ])
    func judged(expression: String, base: [Double], candidate: [Double], passed: Bool) throws {
        let comparison = try Self.compare(
            Self.record(serverMillis: base), Self.record(serverMillis: candidate), [expression])
        #expect(comparison.judged.map(\.passed) == [passed], "\(comparison.judged)")
        #expect(comparison.passed == passed)
    }

    @Test("a share's change in percentage points: 1 % of errors to 2 % is +1pp, not +100 %")
    func points() throws {
        let comparison = try Self.compare(
            Self.record(errors: 10), Self.record(errors: 20),
            ["upload.errors.rate < +0.5pp", "upload.errors.rate < +1.5pp"])
        #expect(comparison.judged.map(\.passed) == [false, true])
        let value = try #require(comparison.judged[0].value)
        #expect(abs(value - 0.01) < 1e-12)
    }

    @Test("the same requests on the virtual clock: the fleet's figures are exact, only the server's time has noise")
    func sameRequests() throws {
        let comparison = try Self.compare(
            Self.record(serverMillis: [5, 10, 15, 20]), Self.record(serverMillis: [6, 10, 15, 20]))
        #expect(comparison.sameRequests)
        #expect(try Self.row(comparison, "upload.count").noise == 0)
        #expect(try Self.row(comparison, "upload.errors.rate").noise == 0)
        #expect(try Self.row(comparison, "upload.latency.p99").noise == 0)
        let p50 = try Self.row(comparison, "server.latency.p50")
        #expect((p50.noise ?? 0) > 0, "\(p50)")
        #expect(try Self.row(comparison, "server.latency.max").noise == nil)
        #expect(comparison.lines(all: false)[0].contains("same 1 requests"))
    }

    @Test("different requests: counts as Poisson counts, shares by their binomial error, each said to be noisy")
    func differentRequests() throws {
        let comparison = try Self.compare(
            Self.record(uploads: 1000, errors: 100), Self.record(uploads: 1100, errors: 100, requests: "other"))
        #expect(!comparison.sameRequests)
        let uploads = try Self.row(comparison, "upload.count")
        #expect(abs((uploads.noise ?? 0) - 1.96 * (2100.0).squareRoot()) < 1e-9)
        let rate = try Self.row(comparison, "upload.errors.rate")
        let expected = 1.96 * (0.1 * 0.9 / 1000 + (1 / 11.0) * (10 / 11.0) / 1100).squareRoot()
        #expect(abs((rate.noise ?? 0) - expected) < 1e-9, "\(rate)")
        #expect(rate.withinNoise)
        #expect(comparison.lines(all: false)[0].contains("different requests"))
    }

    @Test(
        "a percentile's noise needs the samples to place its rank: p99 of 100 answers has none, of 10,000 has one",
        arguments: [(100, false), (10_000, true)])
    func percentileSamples(uploads: Int, known: Bool) throws {
        let millis = (1...100).map(Double.init)
        let comparison = try Self.compare(
            Self.record(uploads: uploads, serverMillis: millis), Self.record(uploads: uploads, serverMillis: millis))
        #expect((try Self.row(comparison, "server.latency.p99").noise != nil) == known)
    }

    @Test(
        "what makes a run not repeat its baseline is named, each in its own words",
        arguments: [
            ("couriers", ["walkers"], UInt64(7), Int64?.some(1_780_000_000_000), true, nil),
            ("other", ["walkers"], 7, 1_780_000_000_000, true, "the fleet"),
            ("couriers", ["walkers", "drivers"], 7, 1_780_000_000_000, true, "the groups"),
            ("couriers", ["walkers"], 8, 1_780_000_000_000, true, "the seed"),
            ("couriers", ["walkers"], 7, nil, true, "the start"),
            ("couriers", ["walkers"], 7, 1_780_000_000_001, true, "the start"),
            ("couriers", ["walkers"], 7, 1_780_000_000_000, false, "the timing"),
        ] as [(String, [String], UInt64, Int64?, Bool, String?)])
    func mismatches(name: String, groups: [String], seed: UInt64, start: Int64?, modelled: Bool, named: String?) {
        let differ = RunComparison.mismatches(
            baseline: Self.record(), name: name, groups: groups, seed: seed, startedAt: start, modelled: modelled)
        #expect(differ.count == (named == nil ? 0 : 1), "\(differ)")
        if let named { #expect(differ.first?.hasPrefix(named) == true, "\(differ)") }
    }

    @Test("a threshold on a group a run lacks, or on a server store a run did not check, cannot be judged")
    func unjudgeable() throws {
        let base = RunComparison.Side(file: "base.json", record: Self.record())
        let thresholds = try ["fixes.lost{group: drivers} < +1", "server.lost < +1", "fixes.lost < +1"].map {
            try Threshold.read($0)
        }
        let problems = RunComparison.unjudgeable(
            thresholds, baseline: base, candidateGroups: ["walkers"], candidateVerified: true, candidate: "c.json")
        #expect(problems.count == 2)
        #expect(problems[0].contains("c.json has no group \"drivers\""))
        #expect(problems[1].contains("the baseline base.json did not check the server's store"))
    }

    @Test("verified runs compare the server's store: its figures as rows, read back from the report's JSON")
    func serverTruth() throws {
        var lost = TruthCounts()
        lost.fixes[.acknowledgedStored] = 990
        lost.fixes[.lost] = 10
        let json = """
            {"server_truth": {"server_rows": 990, "fixes": \(String(decoding: try JSONSerialization.data(
                withJSONObject: lost.keyed), as: UTF8.self)), "groups": {}}}
            """
        let truth = try #require(RunComparison.Truth.read(report: Data(json.utf8)))
        #expect(truth.fleet == lost && truth.serverRows == 990)
        let clean = RunComparison.Truth(fleet: TruthCounts(), groups: [:], serverRows: 0)
        let comparison = try Self.compare(
            Self.record(), Self.record(), ["server.lost < +1", "server.lost.rate <= +0.5pp"], truth: (clean, truth))
        #expect(try Self.row(comparison, "server.lost").candidate == 10)
        #expect(comparison.judged.map(\.passed) == [false, false])
    }

    @Test("the Markdown names the verdict and each failed threshold, and lists only what changed")
    func markdown() throws {
        let comparison = try Self.compare(
            Self.record(serverMillis: [10]), Self.record(serverMillis: [40]),
            ["server.latency.p99 < +10%", "upload.errors.rate < +0.5pp"])
        let text = comparison.markdown(title: "beekon-fleet report compare", html: "a|b.html")
        #expect(text.hasPrefix("## beekon-fleet report compare: failed"))
        #expect(text.contains("| ✗ **failed** | `server.latency.p99 < +10%` | +300.0%"))
        #expect(text.contains("| ✓ passed | `upload.errors.rate < +0.5pp` |"))
        #expect(text.contains("`server.latency.p50`") && !text.contains("`upload.count`"))
        #expect(text.contains("[a\\|b.html](a|b.html)"))
    }

    @Test("the JSON names every measured row and the verdict; without thresholds it is `compared`")
    func json() throws {
        let body = ComparisonBody(try Self.compare(Self.record(), Self.record()))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(body.text.utf8)) as? [String: Any])
        #expect(object["verdict"] as? String == "compared")
        #expect(object["same_requests"] as? Bool == true)
        let rows = try #require(object["rows"] as? [[String: Any]])
        #expect(rows.contains { $0["metric"] as? String == "server.latency.p99" && $0["delta"] as? Double == 0 })
    }

    @Test("runs of different seeds or lengths are compared, each difference said as a caution")
    func cautions() throws {
        let comparison = try Self.compare(Self.record(), Self.record(seed: 8, minutes: 20))
        #expect(comparison.setUpDifferences.count == 2, "\(comparison.setUpDifferences)")
        #expect(comparison.setUpDifferences[0].hasPrefix("the seed: baseline 7, candidate 8"))
        #expect(
            comparison.setUpDifferences[1] == "the virtual length: baseline 10m, candidate 20m (counts and the "
                + "backlog follow it)")
        #expect(comparison.lines(all: false).contains("caution: the runs differ in the seed: baseline 7, candidate 8"))
    }
}
