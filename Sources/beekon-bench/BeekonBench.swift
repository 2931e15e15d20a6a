import ArgumentParser

/// The `beekon-bench` command: benchmarks of the fleet's hot paths, kept out of the shipped
/// `beekon-fleet`.
@main
struct BeekonBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "beekon-bench",
        abstract: "Measure the fleet's hot paths and print the figures.",
        subcommands: [
            BenchStore.self, BenchDevice.self, BenchFleet.self, BenchMaxWarp.self, BenchUpload.self, BenchAdmin.self,
            BenchMetrics.self, BenchHostile.self,
        ])
}
