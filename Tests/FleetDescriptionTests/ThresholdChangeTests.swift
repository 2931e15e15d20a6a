import Testing

@testable import FleetDescription

/// A threshold against a baseline run: its limit a change (`+10%`, `+0.5pp`, `+30s`, `+100`),
/// measured from the baseline's value to the candidate's.
@Suite("Thresholds on the change from a baseline")
struct ThresholdChangeTests {
    @Test(
        "a signed limit reads as a change: relative, points of a share, or a delta in the metric's unit",
        arguments: [
            ("server.latency.p99 < +10%", Threshold.Change.relative, 0.10),
            ("upload.errors.rate < +0.5pp", .points, 0.005),
            ("upload.errors.rate <= +20%", .relative, 0.20),
            ("drain.max < +30s", .delta, 30_000),
            ("upload.latency.p50 <= -5ms", .delta, -5),
            ("fixes.lost <= +0", .delta, 0),
            ("backlog.max < +100", .delta, 100),
            ("server.latency.p99{group: walkers} < -10%", .relative, -0.10),
        ])
    func reads(text: String, change: Threshold.Change, limit: Double) throws {
        let threshold = try Threshold.read(text)
        #expect(threshold.change == change)
        #expect(abs(threshold.limit - limit) < 1e-12, "\(threshold.limit)")
    }

    @Test("an unsigned limit is the value's, as before")
    func unsigned() throws {
        #expect(try Threshold.read("upload.errors.rate < 1%").change == nil)
    }

    @Test(
        "a change that cannot be is refused, saying what was expected",
        arguments: [
            ("upload.latency.p99 < +5pp", "points (pp) are a share's change"),
            ("upload.errors.rate < +0.01", "a share's change is +N% (relative) or +Npp (points)"),
            ("server.latency.p99 < +ten%", "is not a change"),
            ("drain.max < +10 parsecs", "is not a limit"),
        ])
    func refused(text: String, message: String) {
        #expect {
            try Threshold.read(text)
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    @Test(
        "the change measured from baseline to candidate; from 0, relative only to 0",
        arguments: [
            ("server.latency.p99 < +10%", 100.0, 108.0, 0.08), ("server.latency.p99 < +10%", 100, 130, 0.30),
            ("upload.errors.rate < +0.5pp", 0.01, 0.02, 0.01), ("drain.max < +30s", 60_000, 75_000, 15_000),
            ("backlog.max < +100", 50, 20, -30), ("fixes.lost < +10%", 0, 0, 0),
        ])
    func measured(text: String, baseline: Double, candidate: Double, change: Double) throws {
        let threshold = try Threshold.read(text)
        let value = try #require(threshold.changed(from: baseline, to: candidate))
        #expect(abs(value - change) < 1e-9)
    }

    @Test("no data on either side, or a relative change from 0 to more, measures nothing")
    func nothing() throws {
        let threshold = try Threshold.read("server.latency.p99 < +10%")
        #expect(threshold.changed(from: nil, to: 5) == nil && threshold.changed(from: 5, to: nil) == nil)
        #expect(threshold.changed(from: 0, to: 5) == nil)
    }
}
