import ArgumentParser
import FleetKit

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
        version: "0.1.0",
        subcommands: [Run.self, Receive.self, Validate.self, Bench.self]
    )
}

/// Runs a fleet file. Arrives with the fleet runtime.
struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a fleet of emulated devices from a fleet file (not available yet).",
        discussion: "Arrives with the fleet runtime (issue #4).")

    @Argument(help: "The fleet file (YAML).")
    var fleetFile: String?

    func run() throws {
        throw NotYetAvailable(command: "run", issue: 4)
    }
}

/// Runs the reference ingest receiver. Arrives with the receiver.
struct Receive: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the reference Beekon ingest receiver (not available yet).",
        discussion: "Arrives with the reference ingest receiver (issue #5).")

    func run() throws {
        throw NotYetAvailable(command: "receive", issue: 5)
    }
}

/// Checks a fleet file and its routes, reporting every problem with file:line:column.
struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a fleet file and its route files; report every problem with file:line:column.",
        discussion: "Exits 0 when the file is valid, 1 when it has problems (all of them are printed).")

    @Argument(help: "The fleet file (YAML).")
    var fleetFile: String

    func run() throws {
        do throws(FleetFileProblems) {
            let fleet = try FleetFile.load(path: fleetFile)
            let devices = fleet.groups.reduce(0) { $0 + $1.count }
            print(
                "\(fleetFile): ok: fleet \"\(fleet.name)\", \(fleet.groups.count) groups, \(devices) devices, "
                    + "\(fleet.faults.count) faults")
        } catch {
            print(error.description)
            throw ExitCode.failure
        }
    }
}

/// Benchmarks that print figures.
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure the fleet's hot paths and print the figures.",
        subcommands: [BenchStore.self, BenchDevice.self])
}

/// A command that is named in `--help` but whose issue has not landed.
struct NotYetAvailable: Error, CustomStringConvertible {
    let command: String
    let issue: Int

    var description: String {
        "`beekon-fleet \(command)` is not available in this build yet; it arrives with issue #\(issue)."
    }
}

/// A command that could not do its job; the message says why and what to do.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
