import BeekonDevice
import Testing

@testable import FleetDescription

/// `daily:` (a day of load, at the top or in a group) and a group's `arrivals:` as the fleet
/// file's reader takes them: every part in its range, a bad one reported at file:line:column with
/// its field, value and range.
@Suite("daily and arrivals in the fleet file")
struct DailyCurveTests {
    static let hours =
        "[0, 0, 0, 0, 0, 0, 0.25, 0.5, 1, 1, 0.75, 0.5, 0.5, 0.75, 1, 1, 0.75, 0.5, 0.25, 0.25, 0, 0, 0, 0]"
    static let shares: [Double] = [
        0, 0, 0, 0, 0, 0, 0.25, 0.5, 1, 1, 0.75, 0.5, 0.5, 0.75, 1, 1, 0.75, 0.5, 0.25, 0.25, 0, 0, 0, 0,
    ]

    static func yaml(top: String = "", group: String = "") -> String {
        """
        name: d
        \(top)
        groups:
          - name: g
            count: 4
            route: r.csv
        \(group)
          - name: h
            count: 2
            route: r.csv
        """
    }

    @Test("the fleet's day of load is every group's that has none of its own; a group's own wins")
    func levels() throws {
        let fleet = try FleetFile.parse(
            yaml: Self.yaml(
                top: "daily: {utcOffset: \"+01:00\", hours: \(Self.hours)}",
                group: "    daily: {hours: \(Self.hours.replacingOccurrences(of: "0.25", with: "0.5"))}"),
            file: "f.yaml")
        #expect(fleet.daily == DailyCurve(utcOffsetMillis: 3_600_000, shares: Self.shares))
        #expect(fleet.groupDaily[1] == fleet.daily)
        #expect(fleet.groupDaily[0]?.utcOffsetMillis == 0 && fleet.groupDaily[0]?.shares[6] == 0.5)
        #expect(fleet.groupStages == [nil, nil])
        // Sized by the most each curve wants: 4 of g's 4 and 2 of h's 2.
        #expect(fleet.mostDevices == 6)
        // A group with arrivals follows neither the fleet's day nor its stages.
        let arriving = try FleetFile.parse(
            yaml: Self.yaml(top: "daily: {hours: \(Self.hours)}", group: "    arrivals: {perHour: 5}"),
            file: "f.yaml")
        #expect(arriving.groupDaily[0] == nil && arriving.groupDaily[1] != nil && arriving.mostDevices == 6)
        // A group's own stages win over the fleet's day too.
        let staged = try FleetFile.parse(
            yaml: Self.yaml(
                top: "daily: {hours: \(Self.hours)}", group: "    stages: [{for: 1m, devices: 3}]"),
            file: "f.yaml")
        #expect(staged.groupDaily[0] == nil && staged.groupDaily[1] != nil)
        #expect(staged.groupStages[0] == [Stage(durationMillis: 60_000, devices: 3)] && staged.groupStages[1] == nil)
    }

    @Test(
        "utcOffset takes ±HH:MM, ±HH or Z, from -14:00 to +14:00",
        arguments: [
            ("\"+01:00\"", 3_600_000), ("\"-05:30\"", -19_800_000), ("\"+14:00\"", 50_400_000),
            ("\"-14:00\"", -50_400_000), ("Z", 0), ("\"+05\"", 18_000_000), ("\"+00:00\"", 0),
        ] as [(String, Int64)])
    func offsets(text: String, millis: Int64) throws {
        let fleet = try FleetFile.parse(
            yaml: Self.yaml(top: "daily: {utcOffset: \(text), hours: \(Self.hours)}"), file: "f.yaml")
        #expect(fleet.daily?.utcOffsetMillis == millis)
    }

    @Test("a local midnight is found at or before any instant, whatever the offset")
    func midnight() {
        let curve = DailyCurve(utcOffsetMillis: 3_600_000, shares: Self.shares)
        // 2026-06-15T08:00:00Z is 09:00 at +01:00: local midnight was 2026-06-14T23:00:00Z.
        let eight: Int64 = 1_781_510_400_000
        #expect(curve.midnight(atOrBefore: eight) == eight - 9 * 3_600_000)
        #expect(curve.midnight(atOrBefore: eight - 9 * 3_600_000) == eight - 9 * 3_600_000)
        let west = DailyCurve(utcOffsetMillis: -19_800_000, shares: Self.shares)
        #expect(west.midnight(atOrBefore: eight) == eight - (2 * 3_600_000 + 30 * 60_000))
        #expect(curve.devices(hour: 6, of: 4) == 1 && curve.devices(hour: 6, of: 2) == 1)
        #expect(curve.devices(hour: 10, of: 4) == 3 && curve.devices(hour: 0, of: 4) == 0)
    }

    @Test("arrivals read their rate and an optional until")
    func arrivals() throws {
        let fleet = try FleetFile.parse(
            yaml: Self.yaml(group: "    arrivals: {perHour: 120, until: 6h}"), file: "f.yaml")
        #expect(fleet.groups[0].arrivals == Arrivals(perHour: 120, untilMillis: 21_600_000))
        #expect(fleet.groups[1].arrivals == nil)
        let open = try FleetFile.parse(yaml: Self.yaml(group: "    arrivals: {perHour: 0.5}"), file: "f.yaml")
        #expect(open.groups[0].arrivals == Arrivals(perHour: 0.5))
        // A run is sized by the installs it expects: 4 + 120 × 6 h, beside the other group's 2.
        #expect(fleet.mostDevices == 4 + 720 + 2)
        // Without until, over the run's duration; with neither, the count alone.
        let lasting = try FleetFile.parse(
            yaml: Self.yaml(top: "duration: 3h", group: "    arrivals: {perHour: 10}"), file: "f.yaml")
        #expect(lasting.mostDevices == 4 + 30 + 2 && open.mostDevices == 4 + 2)
    }

    @Test(
        "a part out of range, a wrong number of hours, or daily beside stages is refused with its place",
        arguments: [
            (
                "daily: {utcOffset: \"+15:00\", hours: \(hours)}", "",
                "f.yaml:2:20: error: `daily.utcOffset` \"+15:00\" is out of range; expected an offset from "
                    + "\"-14:00\" to \"+14:00\", such as \"+01:00\" or \"-05:30\""
            ),
            (
                "daily: {utcOffset: CET, hours: \(hours)}", "",
                "f.yaml:2:20: error: `daily.utcOffset` \"CET\" is not a UTC offset; expected an offset"
            ),
            (
                "daily: {hours: [1, 1]}", "",
                "f.yaml:2:16: error: `daily.hours` has 2 entries; expected 24 shares from 0 to 1, one for each "
                    + "local hour from midnight"
            ),
            (
                "daily: {hours: \(hours.replacingOccurrences(of: "0.75", with: "1.5"))}", "",
                "error: `daily.hours[10]` \"1.5\" is out of range; expected a number from 0 to 1"
            ),
            ("daily: {utcOffset: Z}", "", "f.yaml:2:8: error: `daily` has no `hours`"),
            ("daily: {hours: \(hours), shape: ramp}", "", "unknown key \"shape\" in daily"),
            (
                "daily: {hours: \(hours)}\nstages: [{for: 1m, devices: 2}]", "",
                "f.yaml:2:8: error: the fleet file gives both `daily` and `stages`; expected one of them"
            ),
            (
                "", "    daily: {hours: \(hours)}\n    stages: [{for: 1m, devices: 2}]",
                "f.yaml:7:12: error: group \"g\" gives both `daily` and `stages`"
            ),
            (
                "", "    arrivals: {perHour: 100001}",
                "f.yaml:7:25: error: `arrivals.perHour` \"100001\" is out of range; expected a number from 0 to "
                    + "100000 /h"
            ),
            (
                "", "    arrivals: {perHour: 5, until: 367d}",
                "f.yaml:7:35: error: `arrivals.until` \"367d\" is out of range; expected a duration from 0s to 366d"
            ),
            ("", "    arrivals: {until: 1h}", "f.yaml:7:15: error: `arrivals` has no `perHour`"),
            (
                "", "    arrivals: {perHour: 5}\n    daily: {hours: \(hours)}",
                "f.yaml:7:15: error: group \"g\" gives `arrivals` with `daily`; expected arrivals in a group of "
                    + "their own"
            ),
        ] as [(String, String, String)])
    func refused(top: String, group: String, problem: String) {
        do {
            _ = try FleetFile.parse(yaml: Self.yaml(top: top, group: group), file: "f.yaml")
            Issue.record("read")
        } catch {
            #expect("\(error)".contains(problem), "\(error)")
        }
    }
}
