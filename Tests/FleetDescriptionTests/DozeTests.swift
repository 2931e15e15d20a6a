import BeekonDevice
import Testing

@testable import FleetDescription

/// A group's `doze:` and the `doze` action: what they read, and how they refuse.
@Suite("Doze in fleet files")
struct DozeTests {
    static func fleet(doze: String, fault: String = "") -> String {
        """
        name: doze
        groups:
          - name: g
            count: 2
            route: r.csv
            doze: \(doze)
        faults:
          - at: 1m
            action: sync
        \(fault)
        """
    }

    static func parse(_ yaml: String) throws(FleetFileProblems) -> FleetFile {
        try FleetFile.parse(yaml: yaml, file: "f.yaml")
    }

    @Test(
        "a group's doze reads its idle delay and window (durations, or ms), AOSP's when left out",
        arguments: [
            ("{}", Doze.aosp), ("{after: 10m}", Doze(afterMillis: 600_000, windowMillis: 300_000)),
            ("{after: 1h, window: 30s}", Doze(afterMillis: 3_600_000, windowMillis: 30_000)),
            ("{window: 600000}", Doze(afterMillis: 1_800_000, windowMillis: 600_000)),
        ])
    func reads(doze: String, expected: Doze) throws {
        #expect(try Self.parse(Self.fleet(doze: doze)).groups[0].doze == expected)
    }

    @Test(
        "a doze it cannot take is refused at its line, naming the field, the value and what it expects",
        arguments: [
            (
                "{after: 30s}",
                "f.yaml:6:19: error: `doze.after` \"30s\" is out of range; expected a whole number from 60000 to "
                    + "86400000 ms, or a duration such as 90s, 10m, 1h30m or 500ms"
            ),
            (
                "{window: 2h}",
                "f.yaml:6:20: error: `doze.window` \"2h\" is out of range; expected a whole number from 10000 to "
                    + "3600000 ms, or a duration such as 90s, 10m, 1h30m or 500ms"
            ),
        ])
    func refuses(doze: String, message: String) {
        do throws(FleetFileProblems) {
            _ = try Self.parse(Self.fleet(doze: doze))
            Issue.record("\(doze) was taken")
        } catch {
            #expect(error.problems.map(\.description) == [message])
        }
    }

    @Test(
        "the doze action reads what it was given, reads it back, and lasts until the group's own is back",
        arguments: [
            ("", DozeSpec()), ("params: {after: 5m}", DozeSpec(afterMillis: 300_000)),
            ("params: {after: 2m, window: 1m}", DozeSpec(afterMillis: 120_000, windowMillis: 60_000)),
        ])
    func action(params: String, expected: DozeSpec) throws {
        let fault = """
              - at: 2m
                action: doze
                \(params)
            """
        let action = try Self.parse(Self.fleet(doze: "{}", fault: fault)).faults[1].action
        #expect(action == .doze(expected))
        #expect(FleetAction(action.name, action.parameterValues) == action)
        #expect(action.name.details.lasts)
    }
}
