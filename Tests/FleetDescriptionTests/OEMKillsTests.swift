import BeekonDevice
import Testing

@testable import FleetDescription

/// A group's `oemKills:`, the `oemKills` action, and the maker a phone's model names.
@Suite("OEM kills in fleet files: the vendor table")
struct OEMKillsTests {
    static func fleet(oemKills: String, fault: String = "") -> String {
        """
        name: oem
        groups:
          - name: g
            count: 2
            route: r.csv
            oemKills: \(oemKills)
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
        "a phone's maker is read from the model it reports, and sets its rate",
        arguments: [
            ("Pixel 8", PhoneMaker.google, 0.0), ("SM-S921B", .samsung, 2), ("SM-A546B", .samsung, 2),
            ("2311DRK48G", .xiaomi, 3), ("23127PN0CG", .xiaomi, 3), ("M2101K6G", .xiaomi, 3),
            ("Redmi Note 13", .xiaomi, 3),
            ("ELS-NX9", .huawei, 3), ("CPH2581", .oppo, 2), ("ONEPLUS A6003", .oneplus, 2), ("RMX3771", .realme, 2),
            ("V2250", .vivo, 2), ("moto g84", .other, 0.5), ("2024", .other, 0.5),
        ] as [(String, PhoneMaker, Double)])
    func makers(model: String, maker: PhoneMaker, perDay: Double) {
        #expect(PhoneMaker(model: model) == maker)
        #expect(OEMKills.vendor.killsPerDay(platform: .android, model: model) == perDay)
        // iOS has no such battery managers.
        #expect(OEMKills.vendor.killsPerDay(platform: .ios, model: model) == 0)
    }

    @Test(
        "a group's oemKills reads `vendor` or a rate for all",
        arguments: [("vendor", OEMKills.vendor), ("{perDay: 2}", .perDay(2)), ("{perDay: 0}", .perDay(0))])
    func reads(oemKills: String, expected: OEMKills) throws {
        #expect(try Self.parse(Self.fleet(oemKills: oemKills)).groups[0].oemKills == expected)
    }

    @Test(
        "an oemKills it cannot take is refused at its line, naming the field, the value and what it expects",
        arguments: [
            (
                "always",
                "f.yaml:6:15: error: `oemKills` \"always\" is not a rate; expected `vendor` (each phone at its "
                    + "maker's rate) or `{perDay: 2}` (0 to 24 per day)"
            ),
            (
                "{perDay: 25}",
                "f.yaml:6:24: error: `oemKills.perDay` \"25\" is out of range; expected a number from 0 to 24 per day"
            ),
            (
                "{}",
                "f.yaml:6:15: error: `oemKills` has no `perDay`; expected kills per virtual day, 0 to 24, e.g. "
                    + "`{perDay: 2}`"
            ),
        ])
    func refuses(oemKills: String, message: String) {
        do throws(FleetFileProblems) {
            _ = try Self.parse(Self.fleet(oemKills: oemKills))
            Issue.record("\(oemKills) was taken")
        } catch {
            #expect(error.problems.map(\.description) == [message])
        }
    }

    @Test(
        "the oemKills action reads what it was given, reads it back, and lasts until the group's own is back",
        arguments: [
            ("", FleetAction.oemKills(.vendor)), ("params: {perDay: 4}", .oemKills(.perDay(4))),
            ("params: {rates: group}", .oemKills(nil)),
        ])
    func action(params: String, expected: FleetAction) throws {
        let fault = """
              - at: 2m
                action: oemKills
                \(params)
            """
        let action = try Self.parse(Self.fleet(oemKills: "vendor", fault: fault)).faults[1].action
        #expect(action == expected)
        #expect(FleetAction(action.name, action.parameterValues) == action)
        #expect(action.name.details.lasts)
    }
}
