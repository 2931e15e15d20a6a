import ArgumentParser
import FleetAdmin
import FleetCommandLine
import FleetDescription
import FleetReport
import Foundation

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
            case .lapses: line += "; `for` is how long it lasts (default 60 s)"
            }
            print(line)
            for parameter in action.parameters {
                let range =
                    parameter.range.map { ", \($0)" } ?? parameter.choices.map {
                        ", one of \($0.joined(separator: "|"))"
                    }
                    ?? ""
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
            docs/openapi.yaml with the schemas this binary generates (its response bodies, live events \
            and actions): `beekon-fleet openapi --output docs/openapi.yaml` brings the file up to date \
            after a body or an action changes. (A shell redirect into the same file would empty it before \
            it is read.)
            """)

    @Option(help: "The page's folder; docs/openapi.yaml is looked for beside it (default: the shipped one).")
    var web: String?

    @Option(name: .shortAndLong, help: "Write the document to this file (it may be the one read) instead of stdout.")
    var output: String?

    func run() throws {
        guard let document = AdminDocuments.openAPI(web: web) else {
            throw ValidationError("docs/openapi.yaml was not found (give --web DIR, the folder beside docs/)")
        }
        guard !document.isEmpty else {
            throw ValidationError(
                "docs/openapi.yaml is empty (a shell redirect into it empties it before it is read: use --output)")
        }
        guard let output else { return print(document, terminator: "") }
        try replaceFile(output, with: document)
    }
}

/// Prints the JSON Schema of `run --report`'s file and `GET /api/v1/report`'s answer.
struct ReportSchema: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report-schema",
        abstract: "Print the JSON Schema (2020-12) of the report `run --report FILE` writes.",
        discussion: """
            The same schema as `RunReport` in the OpenAPI document, generated from the report's type: \
            `beekon-fleet report-schema --output docs/report.schema.json` brings the file up to date.
            """)

    @Option(name: .shortAndLong, help: "Write the schema to this file instead of stdout.")
    var output: String?

    func run() throws {
        let schema = ReportDocuments.schema
        guard let output else { return print(schema, terminator: "") }
        try replaceFile(output, with: schema)
    }
}

/// Writes `text` to `path` beside it and renames it over, so a failure leaves the old file whole
/// (and a file may be rewritten from itself).
func replaceFile(_ path: String, with text: String) throws {
    let temporary = path + ".partial"
    do {
        try Data(text.utf8).write(to: URL(fileURLWithPath: temporary))
    } catch {
        throw CommandFailure("cannot write \(temporary): \(error.localizedDescription)")
    }
    guard rename(temporary, path) == 0 else {
        let reason = String(cString: strerror(errno))
        unlink(temporary)
        throw CommandFailure("cannot replace \(path): \(reason)")
    }
}
