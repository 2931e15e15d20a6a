import BeekonDevice
import Testing

@testable import FleetDescription

/// A group's `churn:` and the `reinstall` and `upgrade` actions: what they read, and how they
/// refuse.
@Suite("Churn in fleet files: reinstalls and upgrades")
struct ChurnTests {
    static func fleet(churn: String, fault: String = "") -> String {
        """
        name: churn
        groups:
          - name: g
            count: 2
            route: r.csv
            churn: \(churn)
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
        "a group's churn reads its reinstall rate and its upgrade, each key optional",
        arguments: [
            (
                #"{reinstallsPerDay: 0.01, upgrade: {sdkVersion: "0.2.0", at: 2h, over: 1h}}"#,
                Churn(
                    reinstallsPerDay: 0.01,
                    upgrade: Churn.Upgrade(sdkVersion: "0.2.0", atMillis: 7_200_000, overMillis: 3_600_000))
            ),
            ("{reinstallsPerDay: 24}", Churn(reinstallsPerDay: 24)),
            (
                "{upgrade: {sdkVersion: 1.4.0-beta.2}}",
                Churn(upgrade: Churn.Upgrade(sdkVersion: "1.4.0-beta.2", atMillis: 0, overMillis: 0))
            ),
            ("{}", Churn()),
        ])
    func reads(churn: String, expected: Churn) throws {
        #expect(try Self.parse(Self.fleet(churn: churn)).groups[0].churn == expected)
    }

    @Test("a group without churn: has none")
    func absent() throws {
        let yaml = Self.fleet(churn: "{}").replacingOccurrences(of: "    churn: {}\n", with: "")
        #expect(try Self.parse(yaml).groups[0].churn == nil)
    }

    @Test(
        "a churn it cannot take is refused at its line, naming the field, the value and what it expects",
        arguments: [
            (
                "{reinstallsPerDay: 25}",
                "f.yaml:6:31: error: `churn.reinstallsPerDay` \"25\" is out of range; expected a number from 0 to 24 "
                    + "per day"
            ),
            (
                "{reinstallsPerDay: -1}",
                "f.yaml:6:31: error: `churn.reinstallsPerDay` \"-1\" is out of range; expected a number from 0 to 24 "
                    + "per day"
            ),
            (
                "{upgrade: {at: 2h}}",
                "f.yaml:6:22: error: `churn.upgrade` has no `sdkVersion`; expected the SDK version the app is "
                    + "updated to, e.g. `sdkVersion: \"0.2.0\"`"
            ),
            (
                #"{upgrade: {sdkVersion: "0 2"}}"#,
                "f.yaml:6:35: error: `churn.upgrade.sdkVersion` \"0 2\" is not an SDK version; expected 1 to 64 "
                    + "characters without spaces, such as 0.1.1"
            ),
            (
                "{upgrade: {sdkVersion: a, over: 367d}}",
                "f.yaml:6:44: error: `churn.upgrade.over` \"367d\" is out of range; expected a duration from 0s to "
                    + "366d, such as 90s, 10m, 1h30m or 500ms"
            ),
            (
                "{upgrade: {sdkVersion: a, at: 400d}}",
                "f.yaml:6:42: error: `churn.upgrade.at` \"400d\" is out of range; expected a duration from 0s to 366d, "
                    + "such as 90s, 10m, 1h30m or 500ms"
            ),
        ])
    func refuses(churn: String, message: String) {
        do throws(FleetFileProblems) {
            _ = try Self.parse(Self.fleet(churn: churn))
            Issue.record("\(churn) was taken")
        } catch {
            #expect(error.problems.map(\.description) == [message])
        }
    }

    @Test("an unknown key in churn: is refused")
    func unknownKey() {
        do throws(FleetFileProblems) {
            _ = try Self.parse(Self.fleet(churn: "{uninstallsPerDay: 1}"))
            Issue.record("uninstallsPerDay was taken")
        } catch {
            #expect(error.problems.count == 1)
            #expect(error.problems.first?.description.contains("uninstallsPerDay") == true)
        }
    }

    @Test(
        "reinstall and upgrade are read from the timeline and read back what they were given",
        arguments: [
            ("reinstall", "", FleetAction.reinstall(openAfterMillis: nil)),
            ("reinstall", "params: {openAfterSeconds: 600}", .reinstall(openAfterMillis: 600_000)),
            ("upgrade", #"params: {sdkVersion: "0.2.0"}"#, .upgrade(sdkVersion: "0.2.0")),
        ])
    func actions(name: String, params: String, expected: FleetAction) throws {
        let fault = """
              - at: 2m
                action: \(name)
                \(params)
            """
        let action = try Self.parse(Self.fleet(churn: "{}", fault: fault)).faults[1].action
        #expect(action == expected)
        #expect(FleetAction(action.name, action.parameterValues) == action)
        // Neither lasts: a reinstall or an upgrade happens once.
        #expect(!action.beginsFault && !action.name.details.lasts)
    }

    @Test(
        "reinstall and upgrade refuse what they cannot take, naming the field and what it expects",
        arguments: [
            (
                "reinstall", "params: {openAfterSeconds: 2592001}",
                "f.yaml:12:32: error: `params.openAfterSeconds` \"2592001\" is out of range; expected a number from 0 "
                    + "to 2592000 s"
            ),
            (
                "upgrade", "params: {}",
                "f.yaml:10:5: error: `upgrade` needs `params.sdkVersion`; expected the SDK version its uploads "
                    + "report from the relaunch on, e.g. `params: {sdkVersion: \"0.2.0\"}`"
            ),
            (
                "upgrade", #"params: {sdkVersion: ""}"#,
                "f.yaml:12:26: error: `params.sdkVersion` \"\" is not an SDK version; expected 1 to 64 characters "
                    + "without spaces, such as 0.1.1"
            ),
        ])
    func refusesActions(name: String, params: String, message: String) {
        let fault = """
              - at: 2m
                action: \(name)
                \(params)
            """
        do throws(FleetFileProblems) {
            _ = try Self.parse(Self.fleet(churn: "{}", fault: fault))
            Issue.record("\(params) was taken")
        } catch {
            #expect(error.problems.map(\.description) == [message])
        }
    }
}
