import BeekonDevice
import Foundation
import Testing

@testable import FleetAdmin
@testable import FleetDescription

/// Every action is described once (`FleetAction.catalog`); the fleet file's timeline, the admin
/// API and `GET /api/v1/actions` all follow that description.
@Suite("One action table")
struct ActionCatalogTests {
    /// The action's example parameters as a JSON object (`{}` for none).
    static func exampleParams(_ name: FleetAction.Name) -> String {
        "{" + name.details.parameters.map { "\"\($0.name)\": \($0.example)" }.joined(separator: ", ") + "}"
    }

    /// A fleet file whose one fault is `name` with its example parameters (JSON is YAML too).
    static func fleet(_ name: FleetAction.Name) -> String {
        """
        name: catalog
        groups:
          - {name: walkers, count: 1, route: walk.csv, config: {sync: false}}
        faults:
          - {at: 1m, select: all, action: \(name.rawValue), params: \(exampleParams(name))}
        """
    }

    @Test(
        "every action's example reads to the same action from a fleet file and from a request body",
        arguments: FleetAction.Name.allCases)
    func sameFromFileAndAPI(name: FleetAction.Name) throws {
        let fromFile = try FleetFile.parse(yaml: Self.fleet(name), file: "fleet.yaml").faults[0].action
        let body =
            #"{"action": "\#(name.rawValue)", "selector": {"all": true}, "params": \#(Self.exampleParams(name))}"#
        let (fromAPI, selector) = try AdminRequests.fleetAction(Array(body.utf8))
        #expect(fromFile.name == name)
        #expect(fromAPI == fromFile)
        #expect(selector == .all)
        #expect(FleetAction(name, fromFile.parameterValues) == fromFile, "parameters do not round-trip")
    }

    @Test(
        "an action missing a required parameter is refused by both readers, naming the parameter",
        arguments: FleetAction.Name.allCases.filter { $0.details.parameters.contains(where: \.required) })
    func requiredParameter(name: FleetAction.Name) throws {
        let required = try #require(name.details.parameters.first { $0.required })
        let yaml = Self.fleet(name).replacingOccurrences(of: ", params: \(Self.exampleParams(name))", with: "")
        #expect(throws: FleetFileProblems.self) { try FleetFile.parse(yaml: yaml, file: "fleet.yaml") }
        do {
            _ = try FleetFile.parse(yaml: yaml, file: "fleet.yaml")
        } catch {
            #expect(error.description.contains("`\(name.rawValue)` needs `params.\(required.name)`"), "\(error)")
        }
        do {
            _ = try AdminRequests.fleetAction(
                Array(#"{"action": "\#(name.rawValue)", "selector": {"all": true}}"#.utf8))
            Issue.record("the API took \(name) without \(required.name)")
        } catch {
            #expect(error.field == "params.\(required.name)", "\(error)")
        }
    }

    @Test("a parameter the action does not take is refused by both readers", arguments: FleetAction.Name.allCases)
    func unknownParameter(name: FleetAction.Name) throws {
        let params =
            Self.exampleParams(name).dropLast() + (name.details.parameters.isEmpty ? "" : ", ") + "\"colour\": 1}"
        let yaml = Self.fleet(name).replacingOccurrences(of: Self.exampleParams(name), with: String(params))
        do {
            _ = try FleetFile.parse(yaml: yaml, file: "fleet.yaml")
            Issue.record("the timeline took \(name) with `colour`")
        } catch {
            #expect(error.description.contains("unknown key \"colour\" in params"), "\(error)")
        }
        let body = #"{"action": "\#(name.rawValue)", "selector": {"all": true}, "params": \#(params)}"#
        do {
            _ = try AdminRequests.fleetAction(Array(body.utf8))
            Issue.record("the API took \(name) with `colour`")
        } catch {
            #expect(error.code == .unknownField && error.field == "params.colour", "\(error)")
        }
    }

    @Test("a timeline fault takes the API's selectors: a state, and a fraction with its seed")
    func timelineSelectors() throws {
        let yaml = Self.fleet(.sync).replacingOccurrences(of: "select: all", with: "select: {state: paused*}")
        #expect(try FleetFile.parse(yaml: yaml, file: "f").faults[0].selector == .state("paused*"))
        let seeded = Self.fleet(.sync).replacingOccurrences(of: "select: all", with: "select: {fraction: 0.5, seed: 7}")
        #expect(try FleetFile.parse(yaml: seeded, file: "f").faults[0].selector == .fraction(0.5, seed: 7))
        let stray = Self.fleet(.sync).replacingOccurrences(of: "select: all", with: "select: {group: walkers, seed: 7}")
        #expect(throws: FleetFileProblems.self) { try FleetFile.parse(yaml: stray, file: "f") }
    }

    @Test("GET /api/v1/actions lists every action once, with its parameters' types, ranges and units")
    func catalogDocument() async throws {
        let harness = try AdminHarness()
        let answer = await harness.call("GET", "/api/v1/actions")
        #expect(answer.status == 200)
        let actions = try #require(answer.object["actions"] as? [[String: Any]])
        #expect(actions.compactMap { $0["name"] as? String } == FleetAction.Name.allCases.map(\.rawValue))
        for (listed, name) in zip(actions, FleetAction.Name.allCases) {
            let params = try #require(listed["params"] as? [[String: Any]])
            #expect(params.compactMap { $0["name"] as? String } == name.details.parameters.map(\.name))
            for (param, parameter) in zip(params, name.details.parameters) {
                #expect(param["type"] as? String == parameter.jsonType.rawValue)
                #expect(param["minimum"] as? Double == parameter.range?.lower)
                #expect(param["maximum"] as? Double == parameter.range?.upper)
            }
            #expect(listed["lasts"] as? Bool == name.details.lasts)
            if let opposite = name.details.ending.undoing {
                let undo = try #require(listed["undoneBy"] as? [String: Any])
                #expect(undo["action"] as? String == opposite.name.rawValue)
            }
        }
        let latency = try #require(actions.first { $0["name"] as? String == "latency" })
        #expect((latency["undoneBy"] as? [String: Any])?["params"] as? [String: Int] == ["ms": 0])
        let selectors = try #require(answer.object["selectors"] as? [[String: Any]])
        #expect(selectors.compactMap { $0["name"] as? String } == ["all", "group", "fraction", "ids", "state"])
    }

    @Test("docs/openapi.yaml carries the action schemas the catalog generates")
    func openAPIFileIsGenerated() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("docs/openapi.yaml"), encoding: .utf8)
        #expect(text.contains(AdminSchemas.begin) && text.contains(AdminSchemas.end))
        #expect(
            AdminSchemas.splice(into: text) == text,
            "docs/openapi.yaml is out of date: run `swift run beekon-fleet openapi --output docs/openapi.yaml`")
        let served = try #require(AdminDocuments.openAPI(web: root.appendingPathComponent("web").path))
        #expect(served == text)
    }

    @Test("docs/fleet-file.md carries the action table the catalog generates")
    func actionTableIsGenerated() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("docs/fleet-file.md"), encoding: .utf8)
        #expect(
            text.contains("\n" + AdminDocuments.actionTable + "\n"),
            "docs/fleet-file.md's action table is out of date: paste `swift run beekon-fleet actions --markdown`")
        for name in FleetAction.Name.allCases {
            #expect(AdminDocuments.actionTable.contains("| `\(name.rawValue)` |"))
        }
    }
}

extension ActionCatalogTests {
    @Test(
        "a request body's values keep their JSON types: a number, a boolean or null is no string",
        arguments: [
            (#""params": {"ids": [null]}"#, "removeGeofences", "params.ids"),
            (#""params": {"ids": [1]}"#, "removeGeofences", "params.ids"),
            (#""params": {"extras": {"driver": true}}"#, "setExtras", "params.extras.driver"),
            (
                #""params": {"geofences": [{"id": 7, "latitude": 1, "longitude": 1, "radius": 50}]}"#, "addGeofences",
                "id"
            ),
            (#""params": {"config": {"detectActivity": "true"}}"#, "configure", "params"),
            (#""params": {"ms": "800"}"#, "latency", "params.ms"),
        ])
    func jsonTypesKept(params: String, action: String, field: String) {
        let body = #"{"action": "\#(action)", "selector": {"all": true}, \#(params)}"#
        do {
            let taken = try AdminRequests.fleetAction(Array(body.utf8))
            Issue.record("taken: \(taken)")
        } catch {
            #expect(error.status == 400, "\(error)")
            #expect(error.field?.hasPrefix("params") == true || error.field == field, "\(error)")
        }
    }
}
