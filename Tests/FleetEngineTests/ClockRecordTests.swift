import Foundation
import Testing

@testable import FleetEngine

/// `clock.json`: what a run writes, what the next run reads back, and how a bad file is refused.
@Suite("Clock record")
struct ClockRecordTests {
    static let path = "/data/clock.json"

    @Test(
        "a record reads back exactly as it was written",
        arguments: [
            ClockRecord(reachedMillis: 1_781_510_400_000, warp: 60, stopped: false),
            ClockRecord(reachedMillis: 0, warp: 0.01, stopped: true),
            ClockRecord(reachedMillis: 253_402_300_799_999, warp: 10_000, stopped: false),
            ClockRecord(reachedMillis: 1_781_510_400_123, warp: 2.5, stopped: true),
        ])
    func roundTrip(record: ClockRecord) throws {
        #expect(try ClockRecord(json: record.json, path: Self.path) == record)
    }

    /// Records and the latest instant each allows for.
    static let latestCases: [(ClockRecord, Int64)] = [
        (ClockRecord(reachedMillis: 1_000_000, warp: 60, stopped: true), 1_000_000),
        (ClockRecord(reachedMillis: 1_000_000, warp: 60, stopped: false), 1_000_000 + 21_000),
        (ClockRecord(reachedMillis: 1_000_000, warp: 3000, stopped: false), 1_000_000 + 1_050_000),
        (ClockRecord(reachedMillis: 1_000_000, warp: 1, stopped: false), 1_000_000 + 350),
        // 3.5 ms rounds up: the floor must never fall short.
        (ClockRecord(reachedMillis: 1_000_000, warp: 0.01, stopped: false), 1_000_000 + 4),
    ]

    @Test(
        """
        a run that stopped can have stamped nothing past its record; \
        one that died, up to its warp × (write interval + lag bound)
        """,
        arguments: latestCases)
    func latestPossible(record: ClockRecord, latest: Int64) {
        #expect(record.latestPossibleMillis == latest)
    }

    @Test(
        "a clock file that is not what a run writes is refused with the file, what is wrong, and what was expected",
        arguments: [
            ("", "is not a JSON object"),
            ("garbage", "is not a JSON object"),
            ("[1, 2]", "is not a JSON object"),
            (#"{"warp": 60, "stopped": false}"#, #"has no "reached_unix_ms""#),
            (#"{"reached_unix_ms": 1781510400000, "stopped": false}"#, #"has no "warp""#),
            (#"{"reached_unix_ms": 1781510400000, "warp": 60}"#, #"has no "stopped""#),
            (
                #"{"reached_unix_ms": "soon", "warp": 60, "stopped": false}"#,
                #""reached_unix_ms" that is not an integer"#
            ),
            (#"{"reached_unix_ms": 1781510400000, "warp": "fast", "stopped": false}"#, #""warp" that is not a number"#),
            (
                #"{"reached_unix_ms": 1781510400000, "warp": 60, "stopped": "no"}"#,
                #""stopped" that is not true or false"#
            ),
            (
                #"{"reached_unix_ms": 1781510400000, "warp": 60, "stopped": null}"#,
                #""stopped" that is not true or false"#
            ),
            (#"{"reached_unix_ms": 1.5, "warp": 60, "stopped": false}"#, #""reached_unix_ms""#),
            (
                #"{"reached_unix_ms": -1, "warp": 60, "stopped": false}"#,
                #""reached_unix_ms" -1 that is not between 1970 and 9999"#
            ),
            (#"{"reached_unix_ms": 1781510400000, "warp": 0, "stopped": false}"#, #""warp" 0 that is out of range"#),
            (
                #"{"reached_unix_ms": 1781510400000, "warp": 20000, "stopped": false}"#,
                #""warp" 20000 that is out of range"#
            ),
        ])
    func badFileIsRefused(content: String, problem: String) {
        do {
            let record = try ClockRecord(json: Data(content.utf8), path: Self.path)
            Issue.record("\(content) was read as \(record)")
        } catch {
            #expect(error.description.contains("the clock file \(Self.path) "), "\(error)")
            #expect(error.description.contains(problem), "\(error)")
            #expect(
                error.description.contains("expected \(ClockRecord.expected), as beekon-fleet run writes it"),
                "\(error)")
            #expect(error.description.contains("delete it"), "\(error)")
        }
    }
}
