import ArgumentParser
import FleetCommandLine

/// The `beekon-bench` command: benchmarks of the fleet's hot paths, kept out of the shipped
/// `beekon-fleet`.
@main
struct BeekonBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "beekon-bench",
        abstract: "Measure the fleet's hot paths and print the figures.",
        subcommands: [
            BenchStore.self, BenchDevice.self, BenchFleet.self, BenchMaxWarp.self, BenchUpload.self, BenchAdmin.self,
            BenchMetrics.self, BenchHostile.self, BenchTiming.self, BenchVerify.self, BenchCompare.self,
        ])

    /// Sets up logging once (at `BEEKON_LOG_LEVEL`, else info) before the benchmark runs: the
    /// figures are printed, what the fleet and receiver log goes to standard error.
    static func main() {
        mainWithLogging()
    }
}
