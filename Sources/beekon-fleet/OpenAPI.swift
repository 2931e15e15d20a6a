import ArgumentParser
import FleetAdmin

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
