import ArgumentParser

/// `report`: what can be done with run reports once the runs are over.
struct Report: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Work with the reports runs wrote (`run --report FILE`).",
        subcommands: [Merge.self, Compare.self])
}
