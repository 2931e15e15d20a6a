import ArgumentParser

/// `beekon-fleet bench store`: the device store's and the payload's hot paths.
struct BenchStore: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Store commits per second, RSS per idle store, and encode+gzip of a 100-fix batch.")

    @Flag(help: "Print the figures as one JSON object.")
    var json = false

    func run() throws {
    }
}
