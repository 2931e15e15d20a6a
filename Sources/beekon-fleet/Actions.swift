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

    @Flag(help: "Print the Markdown table docs/fleet-file.md carries.")
    var markdown = false

    func run() {
        guard !json else {
            print(AdminDocuments.actionCatalog)
            return
        }
        guard !markdown else {
            print(AdminDocuments.actionTable, terminator: "")
            return
        }
        for name in FleetAction.Name.allCases {
            let action = name.details
            var line = "\(name.rawValue): \(action.summary)"
            if case .undoneBy(let opposite) = action.ending {
                line += "; `for` then runs \(AdminDocuments.request(opposite))"
            } else if let meaning = AdminDocuments.forMeaning(action.ending) {
                line += "; `for` is \(meaning)"
            }
            print(line)
            for parameter in action.parameters {
                let range = AdminDocuments.valuesText(parameter, choicesJoinedBy: "|")
                let need = parameter.required ? "required" : "optional"
                print(
                    "    params.\(parameter.name) (\(parameter.jsonType.rawValue)\(range), \(need)): "
                        + "\(parameter.summary); e.g. \(parameter.example)")
            }
        }
        print("selectors: all, {group: NAME}, {fraction: 0.2, seed: 7}, {ids: [ID, …]}, {state: paused*}")
    }
}
