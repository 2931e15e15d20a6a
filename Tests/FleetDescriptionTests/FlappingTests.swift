import BeekonDevice
import Testing

@testable import FleetDescription

/// A group's `flapping:` and the `flapping` action: what they read, and how they refuse.
@Suite("Flapping in fleet files: drops and handovers")
struct FlappingTests {
    static func fleet(flapping: String, fault: String = "") -> String {
        """
        name: flap
        groups:
          - name: g
            count: 2
            route: r.csv
            flapping: \(flapping)
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
        "a group's flapping reads its means (durations, or ms) and its handover share, the rest the standard's",
        arguments: [
            (
                "{meanOnline: 20m, meanOffline: 45s, handover: 0.5}",
                Flapping(meanOnlineMillis: 1_200_000, meanOfflineMillis: 45_000, handover: 0.5)
            ),
            ("{meanOnline: 90000}", Flapping(meanOnlineMillis: 90_000, meanOfflineMillis: 45_000, handover: 0.25)),
            ("{handover: 1}", Flapping(meanOnlineMillis: 1_200_000, meanOfflineMillis: 45_000, handover: 1)),
            (
                "{meanOffline: 1s, handover: 0}",
                Flapping(meanOnlineMillis: 1_200_000, meanOfflineMillis: 1000, handover: 0)
            ),
            ("{meanOnline: 7d}", Flapping(meanOnlineMillis: 604_800_000, meanOfflineMillis: 45_000, handover: 0.25)),
            ("{}", Flapping.standard),
        ])
    func reads(flapping: String, expected: Flapping) throws {
        #expect(try Self.parse(Self.fleet(flapping: flapping)).groups[0].flapping == expected)
    }

    @Test("a group without flapping: stays up")
    func absent() throws {
        let yaml = Self.fleet(flapping: "{}").replacingOccurrences(of: "    flapping: {}\n", with: "")
        #expect(try Self.parse(yaml).groups[0].flapping == nil)
    }

    @Test(
        "a flapping it cannot take is refused at its line, naming the field, the value and what it expects",
        arguments: [
            (
                "{meanOnline: 999ms}",
                "f.yaml:6:28: error: `flapping.meanOnline` \"999ms\" is out of range; expected a whole number from "
                    + "1000 to 604800000 ms, or a duration such as 90s, 10m, 1h30m or 500ms"
            ),
            (
                "{meanOffline: 8d}",
                "f.yaml:6:29: error: `flapping.meanOffline` \"8d\" is out of range; expected a whole number from "
                    + "1000 to 604800000 ms, or a duration such as 90s, 10m, 1h30m or 500ms"
            ),
            (
                "{handover: 1.5}",
                "f.yaml:6:26: error: `flapping.handover` \"1.5\" is out of range; expected a number from 0 to 1"
            ),
            (
                "{meanOnline: soon}",
                "f.yaml:6:28: error: `flapping.meanOnline` \"soon\" is not a duration; expected a whole number "
                    + "from 1000 to 604800000 ms, or a duration such as 90s, 10m, 1h30m or 500ms"
            ),
        ])
    func refuses(flapping: String, message: String) {
        do throws(FleetFileProblems) {
            _ = try Self.parse(Self.fleet(flapping: flapping))
            Issue.record("\(flapping) was taken")
        } catch {
            #expect(error.problems.map(\.description) == [message])
        }
    }

    @Test("an unknown key in flapping: is refused, naming it")
    func unknownKey() {
        do throws(FleetFileProblems) {
            _ = try Self.parse(Self.fleet(flapping: "{meanUp: 1m}"))
            Issue.record("meanUp was taken")
        } catch {
            #expect(error.problems.count == 1)
            #expect(error.problems.first?.description.contains("meanUp") == true)
        }
    }

    @Test(
        "the flapping action reads what it was given, reads it back, and lasts until the group's own is back",
        arguments: [
            ("", FlappingSpec()),
            (
                "params: {meanOnline: 10m, meanOffline: 30s, handover: 1}",
                FlappingSpec(meanOnlineMillis: 600_000, meanOfflineMillis: 30_000, handover: 1)
            ),
            ("params: {handover: 0.5}", FlappingSpec(handover: 0.5)),
        ])
    func action(params: String, expected: FlappingSpec) throws {
        let fault = """
              - at: 2m
                action: flapping
                \(params)
            """
        let action = try Self.parse(Self.fleet(flapping: "{}", fault: fault)).faults[1].action
        #expect(action == .flapping(expected))
        #expect(FleetAction(action.name, action.parameterValues) == action)
        #expect(action.name.details.lasts)
    }

    @Test(
        "a flapping action's numbers override the group's own, or the standard's; none is the group's own",
        arguments: [
            (FlappingSpec(), nil, nil),
            (FlappingSpec(), Flapping.standard, Flapping.standard),
            (
                FlappingSpec(handover: 1), nil,
                Flapping(meanOnlineMillis: 1_200_000, meanOfflineMillis: 45_000, handover: 1)
            ),
            (
                FlappingSpec(meanOfflineMillis: 2000),
                Flapping(meanOnlineMillis: 60_000, meanOfflineMillis: 9000, handover: 0),
                Flapping(meanOnlineMillis: 60_000, meanOfflineMillis: 2000, handover: 0)
            ),
        ] as [(FlappingSpec, Flapping?, Flapping?)])
    func resolves(spec: FlappingSpec, group: Flapping?, expected: Flapping?) {
        #expect(spec.resolved(over: group) == expected)
    }

    @Test("a flapping action out of range is refused at its line")
    func refusesAction() {
        let fault = """
              - at: 2m
                action: flapping
                params: {meanOffline: 500}
            """
        do throws(FleetFileProblems) {
            _ = try Self.parse(Self.fleet(flapping: "{}", fault: fault))
            Issue.record("meanOffline 500 was taken")
        } catch {
            #expect(
                error.problems.map(\.description) == [
                    "f.yaml:12:27: error: `params.meanOffline` \"500\" is out of range; expected a whole number "
                        + "from 1000 to 604800000 ms"
                ])
        }
    }
}
