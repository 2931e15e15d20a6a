import ArgumentParser
import FleetAdmin
import FleetDescription

/// Lists what a fleet file's fault timeline and the admin API can do to devices.
struct Actions: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List every action (fault or control) with its parameters, and the selectors.",
        discussion: """
            The same description the admin API serves at GET /api/v1/actions (--json prints \
            that document) and a fleet file's `faults:` entries follow.
            """)

    @Flag(help: "Print the JSON document GET /api/v1/actions serves.")
    var json = false

    func run() {
        guard !json else {
            print(AdminDocuments.actionCatalog)
            return
        }
        for name in FleetAction.Name.allCases {
            let action = name.details
            var line = "\(name.rawValue): \(action.summary)"
            switch action.ending {
            case .never: break
            case .undoneBy(let opposite): line += "; `for` then runs \(AdminDocuments.request(opposite))"
            case .recovers: line += "; `for` is the recovery time (default 5 s)"
            case .relaunches: line += "; `for` is the relaunch delay"
            }
            print(line)
            for parameter in action.parameters {
                let range = parameter.range.map { ", \($0)" } ?? ""
                let need = parameter.required ? "required" : "optional"
                print(
                    "    params.\(parameter.name) (\(parameter.jsonType.rawValue)\(range), \(need)): "
                        + "\(parameter.summary); e.g. \(parameter.example)")
            }
        }
        print("selectors: all, {group: NAME}, {fraction: 0.2, seed: 7}, {ids: [ID, …]}, {state: paused*}")
    }
}

/// Prints the admin API's OpenAPI document as the admin server serves it.
struct OpenAPI: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "openapi",
        abstract: "Print the admin API's OpenAPI document, as GET /api/v1/openapi.yaml serves it.",
        discussion: """
            docs/openapi.yaml with the action schemas this binary describes: \
            `beekon-fleet openapi > docs/openapi.yaml` brings the file up to date after an action changes.
            """)

    @Option(help: "The page's folder; docs/openapi.yaml is looked for beside it (default: the shipped one).")
    var web: String?

    func run() throws {
        guard let document = AdminDocuments.openAPI(web: web) else {
            throw ValidationError("docs/openapi.yaml was not found (give --web DIR, the folder beside docs/)")
        }
        print(document, terminator: "")
    }
}
