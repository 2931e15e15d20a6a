import ArgumentParser
import FleetReport

/// Prints the JSON Schema of `run --report`'s file and `GET /api/v1/report`'s answer.
struct ReportSchema: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report-schema",
        abstract: "Print the JSON Schema (2020-12) of the report `run --report FILE` writes (or of a comparison).",
        discussion: """
            The same schema as `RunReport` in the OpenAPI document, generated from the report's type: \
            `beekon-fleet report-schema --output docs/report.schema.json` brings the file up to date. \
            With --comparison, the schema of `report compare --json` (docs/compare.schema.json).
            """)

    @Flag(help: "The schema of `report compare --json` instead.")
    var comparison = false

    @Option(name: .shortAndLong, help: "Write the schema to this file instead of stdout.")
    var output: String?

    func run() throws {
        let schema = comparison ? ReportDocuments.comparisonSchema : ReportDocuments.schema
        guard let output else { return print(schema, terminator: "") }
        try replaceFile(output, with: schema)
    }
}
