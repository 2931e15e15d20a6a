import ArgumentParser
import FleetCommandLine
import FleetDescription

/// Checks a fleet file and its routes, reporting every problem with file:line:column.
struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a fleet file and its route files; report every problem with file:line:column.",
        discussion: "Exits 0 when the file is valid, 64 when it has problems (all of them are printed), as `run` does.")

    @Argument(help: "The fleet file (YAML).")
    var fleetFile: String

    func run() throws {
        do throws(FleetFileProblems) {
            let fleet = try FleetFile.load(path: fleetFile)
            let devices = fleet.groups.reduce(0) { $0 + $1.count }
            func counted(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }
            print(
                "\(fleetFile): ok: fleet \"\(fleet.name)\", \(counted(fleet.groups.count, "group")), "
                    + "\(counted(devices, "device")), \(counted(fleet.faults.count, "fault"))")
        } catch {
            print(error.description)
            throw ExitCode.usage
        }
    }
}
