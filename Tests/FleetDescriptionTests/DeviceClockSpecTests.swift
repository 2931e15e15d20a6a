import BeekonDevice
import Testing

@testable import FleetDescription

/// A group's `deviceClock:` and the clock actions as the fleet file's reader takes them: every
/// part in its range, a bad one reported at file:line:column with its field, value and range.
@Suite("deviceClock in the fleet file")
struct DeviceClockSpecTests {
    static func yaml(_ clock: String) -> String {
        """
        name: d
        groups:
          - name: g
            count: 1
            route: r.csv
            deviceClock: \(clock)
        """
    }

    @Test(
        "deviceClock's parts, each optional, signed where an offset may be",
        arguments: [
            ("{offset: 5m}", DeviceClockSpec(offsetMillis: 300_000)),
            ("{offset: -5m, spread: 30s}", DeviceClockSpec(offsetMillis: -300_000, spreadMillis: 30_000)),
            ("{offset: +90, driftPpm: 50}", DeviceClockSpec(offsetMillis: 90_000, driftPpm: 50)),
            (
                "{offset: 0s, spread: 2m, driftPpm: 50, ntp: {every: 6h}}",
                DeviceClockSpec(spreadMillis: 120_000, driftPpm: 50, ntpEveryMillis: 21_600_000)
            ),
            ("{offset: -7d, spread: 7d}", DeviceClockSpec(offsetMillis: -604_800_000, spreadMillis: 604_800_000)),
            ("{ntp: {every: 1m}}", DeviceClockSpec(ntpEveryMillis: 60_000)),
            ("{ntp: {every: 30d}, driftPpm: 500}", DeviceClockSpec(driftPpm: 500, ntpEveryMillis: 2_592_000_000)),
            ("{}", DeviceClockSpec()),
        ])
    func reads(_ text: String, spec: DeviceClockSpec) throws {
        let fleet = try FleetFile.parse(yaml: Self.yaml(text), file: "f.yaml")
        #expect(fleet.groups[0].deviceClock == spec)
    }

    @Test("a group without deviceClock has none: its phones read true time")
    func absent() throws {
        let fleet = try FleetFile.parse(
            yaml: Self.yaml("{}").replacingOccurrences(of: "deviceClock: {}", with: ""), file: "f.yaml")
        #expect(fleet.groups[0].deviceClock == nil)
    }

    @Test(
        "a part out of range is reported with its place, field, value and range",
        arguments: [
            (
                "{offset: 8d}",
                "f.yaml:6:27: error: `deviceClock.offset` \"8d\" is out of range; "
                    + "expected a duration from -7d to 7d, such as -5m, 90s or 0s"
            ),
            (
                "{offset: -8d}",
                "f.yaml:6:27: error: `deviceClock.offset` \"-8d\" is out of range; "
                    + "expected a duration from -7d to 7d, such as -5m, 90s or 0s"
            ),
            (
                "{offset: soon}",
                "f.yaml:6:27: error: `deviceClock.offset` \"soon\" is not a duration; "
                    + "expected a duration from -7d to 7d, such as -5m, 90s or 0s"
            ),
            (
                "{spread: -1m}",
                "f.yaml:6:27: error: `deviceClock.spread` \"-1m\" is out of range; "
                    + "expected a duration from 0s to 7d, such as 2m"
            ),
            (
                "{driftPpm: 501}",
                "f.yaml:6:29: error: `deviceClock.driftPpm` \"501\" is out of range; "
                    + "expected a number from 0 to 500 ppm"
            ),
            (
                "{ntp: {every: 30s}}",
                "f.yaml:6:32: error: `deviceClock.ntp.every` \"30s\" is out of range; "
                    + "expected a duration from 1m to 30d, such as 6h"
            ),
            (
                "{ntp: {every: 31d}}",
                "f.yaml:6:32: error: `deviceClock.ntp.every` \"31d\" is out of range; "
                    + "expected a duration from 1m to 30d, such as 6h"
            ),
            ("{ntp: {}}", "f.yaml:6:24: error: `deviceClock.ntp` has no `every`; expected e.g. `ntp: {every: 6h}`"),
            ("{drift: 5}", "f.yaml:6:19: error: unknown key \"drift\" in deviceClock"),
        ])
    func refuses(_ text: String, problem: String) {
        do throws(FleetFileProblems) {
            _ = try FleetFile.parse(yaml: Self.yaml(text), file: "f.yaml")
            Issue.record("\(text) was taken")
        } catch {
            #expect(error.problems.map(\.description).first?.hasPrefix(problem) == true, "\(error.problems)")
        }
    }

    @Test(
        "clockJump and clockOffset take seconds either way, in their ranges",
        arguments: [
            ("{at: 1m, action: clockJump, params: {seconds: -600}}", FleetAction?.some(.clockJump(millis: -600_000))),
            ("{at: 1m, action: clockJump, params: {seconds: 86400}}", .clockJump(millis: 86_400_000)),
            ("{at: 1m, action: clockJump, params: {seconds: 86401}}", nil),
            ("{at: 1m, action: clockOffset, params: {seconds: -604800}}", .clockOffset(millis: -604_800_000)),
            ("{at: 1m, action: clockOffset, params: {seconds: 604801}}", nil),
            ("{at: 1m, action: clockJump}", nil),
        ])
    func actions(_ line: String, action: FleetAction?) {
        let yaml = Self.yaml("{}") + "\nfaults:\n  - \(line)\n"
        do throws(FleetFileProblems) {
            let fleet = try FleetFile.parse(yaml: yaml, file: "f.yaml")
            #expect(fleet.faults.first?.action == action)
        } catch {
            #expect(action == nil, "\(line) was refused: \(error)")
        }
    }

    @Test(
        "clockOffset is a fault a timeline `for` ends by setting the clock back to true time; clockJump does not last")
    func endings() {
        #expect(FleetAction.clockOffset(millis: 60_000).undoing == .clockOffset(millis: 0))
        #expect(FleetAction.clockOffset(millis: 60_000).beginsFault)
        #expect(!FleetAction.clockOffset(millis: 0).beginsFault)
        #expect(!FleetAction.clockJump(millis: 60_000).beginsFault)
    }
}
