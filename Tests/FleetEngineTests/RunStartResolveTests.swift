import Foundation
import Testing

@testable import FleetEngine

/// Where a run's clock starts: `clock.start` on a fresh folder, after everything the earlier run
/// stamped on one it used.
@Suite("Run start instant")
struct RunStartResolveTests {
    /// `clock.start: 2026-06-15T08:00:00Z`.
    static let start: Int64 = 1_781_510_400_000
    /// Where an earlier run got to: an hour later.
    static let reached: Int64 = start + 3_600_000

    struct Case: Sendable, CustomTestStringConvertible {
        var configured: Int64?
        var wallNow: Int64 = RunStartResolveTests.start - 86_400_000
        var earlierRun = true
        var record: ClockRecord?
        var newestStored: Int64?
        var expected: RunStart
        var testDescription: String { "\(expected.reason) at \(expected.millis)" }
    }

    static let cases: [Case] = [
        // Fresh folders start where the fleet file says, as before resumes existed.
        Case(configured: start, earlierRun: false, expected: RunStart(millis: start, reason: .fresh)),
        Case(
            configured: nil, wallNow: start + 5, earlierRun: false,
            expected: RunStart(millis: start + 5, reason: .fresh)),
        // A clean stop: 1 ms on, whatever clock.start says.
        Case(
            configured: start, record: ClockRecord(reachedMillis: reached, warp: 60, stopped: true),
            expected: RunStart(millis: reached + 1, reason: .stopped)),
        Case(
            configured: reached + 86_400_000, record: ClockRecord(reachedMillis: reached, warp: 60, stopped: true),
            expected: RunStart(millis: reached + 1, reason: .stopped)),
        // A kill: past what the run can have done since its last record.
        Case(
            configured: start, record: ClockRecord(reachedMillis: reached, warp: 60, stopped: false),
            newestStored: reached - 10,
            expected: RunStart(millis: reached + 21_001, reason: .unrecorded(slackMillis: 21_000))),
        // Stores newer than the record (or a tie, which goes to the record).
        Case(
            configured: start, record: ClockRecord(reachedMillis: reached, warp: 60, stopped: true),
            newestStored: reached + 50_000, expected: RunStart(millis: reached + 50_001, reason: .stored)),
        Case(
            configured: start, record: ClockRecord(reachedMillis: reached, warp: 60, stopped: true),
            newestStored: reached,
            expected: RunStart(millis: reached + 1, reason: .stopped)),
        // No clock file (a run of an older build): the stores alone.
        Case(configured: start, newestStored: reached, expected: RunStart(millis: reached + 1, reason: .stored)),
        // An earlier run that left nothing to go by.
        Case(configured: start, expected: RunStart(millis: start, reason: .noTrace)),
        Case(configured: nil, wallNow: start, expected: RunStart(millis: start, reason: .noTrace)),
        // `start: now`: the wall clock when it is later than the floor, the floor when a warp ran ahead of it.
        Case(
            configured: nil, wallNow: reached + 600_000,
            record: ClockRecord(reachedMillis: reached, warp: 1, stopped: true),
            expected: RunStart(millis: reached + 600_000, reason: .wallClock)),
        Case(
            configured: nil, wallNow: reached - 600_000,
            record: ClockRecord(reachedMillis: reached, warp: 60, stopped: false),
            expected: RunStart(millis: reached + 21_001, reason: .unrecorded(slackMillis: 21_000))),
    ]

    @Test(
        "a fresh folder starts at clock.start; a used one just after everything its last run can have stamped",
        arguments: cases)
    func resolve(_ example: Case) {
        let resolved = RunStart.resolve(
            configured: example.configured, wallNow: example.wallNow, earlierRun: example.earlierRun,
            record: example.record, newestStored: example.newestStored)
        #expect(resolved == example.expected)
    }

    @Test(
        "the start line names the instant and why, and a fresh start prints none",
        arguments: [
            (RunStart(millis: start, reason: .fresh), nil),
            (
                RunStart(millis: start, reason: .stopped),
                "resuming at 2026-06-15T08:00:00.000Z, "
                    + "1 ms after the previous run on this data folder stopped (clock.json)"
            ),
            (
                RunStart(millis: start, reason: .unrecorded(slackMillis: 1_050_000)),
                "it did not stop cleanly, so 1050 s of virtual time after its last record in clock.json"
            ),
            (RunStart(millis: start, reason: .unrecorded(slackMillis: 350)), "so 0.35 s of virtual time"),
            (
                RunStart(millis: start, reason: .stored),
                "resuming at 2026-06-15T08:00:00.000Z, 1 ms after the newest fix or geofence event"
            ),
            (RunStart(millis: start, reason: .wallClock), "resuming at 2026-06-15T08:00:00.000Z, the wall clock"),
            (RunStart(millis: start, reason: .noTrace), "starting at 2026-06-15T08:00:00.000Z (`clock.start`)"),
        ] as [(RunStart, String?)])
    func notice(start: RunStart, fragment: String?) {
        guard let fragment else {
            #expect(start.notice == nil)
            return
        }
        let line = start.notice ?? ""
        #expect(line.hasPrefix("beekon-fleet: "), "\(line)")
        #expect(line.contains(fragment), "\(line)")
        #expect(!line.contains("\n"))
    }
}
