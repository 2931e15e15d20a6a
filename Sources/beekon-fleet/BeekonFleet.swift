import ArgumentParser
import FleetCommandLine
import FleetDescription
import FleetEngine

/// The `beekon-fleet` command: hosts a fleet of emulated Beekon devices, and the tools around it.
@main
struct BeekonFleet: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "beekon-fleet",
        abstract: "A fleet of emulated Beekon devices for load-testing a Beekon ingest server.",
        discussion: """
            Each emulated device has its own SQLite store, install id, sync config and auth \
            state, follows a route, suffers the faults you inject, and uploads exactly as the \
            Beekon SDK does.
            """,
        version: BuildInfo.version,
        subcommands: [
            Run.self, Receive.self, Verify.self, Validate.self, Report.self, Actions.self, OpenAPI.self,
            ReportSchema.self,
        ]
    )

    /// Sets up logging once, at the chosen command's level, before the command runs.
    static func main() {
        mainWithLogging()
    }
}

extension TimingChoice: ExpressibleByArgument {}
extension FleetFile.HTTP2Choice: ExpressibleByArgument {}
