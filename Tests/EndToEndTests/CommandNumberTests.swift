import BeekonDevice
import FleetTestSupport
import Foundation
import Testing

@testable import FleetDescription
@testable import FleetEngine

/// Hostile numbers on every numeric flag of `beekon-fleet run` and `beekon-bench *`, given to the
/// real binaries: each refused with exit code 64 naming the flag, the value and the range, before
/// anything starts.
@Suite("Command-line numbers", .serialized)
struct CommandNumberTests {
    /// Runs `command` to its end, its first word the executable (`beekon-fleet`, `beekon-bench`)
    /// built next to the tests: the exit status and what it wrote to stderr and stdout.
    static func runToExit(_ command: [String]) async throws -> (status: Int32, errors: String, output: String) {
        let result = try await ChildRun.run(ChildRun.built(command[0]), Array(command.dropFirst()))
        return (result.status, result.errors, result.output)
    }

    /// How a flag reads its value, to tell which hostile values its range takes.
    enum Kind: Sendable {
        case real(NumberRange)
        case integer(NumberRange)
        case duration
        case runLength

        func accepts(_ text: String) -> Bool {
            switch self {
            case .real(let range): (try? range.read(text)) != nil
            case .integer(let range): (try? range.readInteger(text)) != nil
            case .duration: (try? FleetDuration.read(text)) != nil
            case .runLength: (try? FleetDuration.readRunLength(text)) != nil
            }
        }
    }

    static let flags: [(command: [String], flag: String, kind: Kind)] = [
        (["beekon-fleet", "run", "--admin", "off"], "--warp", .real(FleetClock.warpRange)),
        (["beekon-fleet", "run", "--admin", "off"], "--seed", .integer(FleetFile.seedRange)),
        (["beekon-fleet", "run", "--admin", "off"], "--duration", .duration),
        (["beekon-fleet", "run", "--admin", "off"], "--for", .runLength),
        (["beekon-fleet", "run", "--admin", "off"], "--max-connections", .integer(RunOptions.maxConnectionsRange)),
        (["beekon-bench", "fleet"], "--devices", .integer(DeviceGroup.countRange)),
        (["beekon-bench", "fleet"], "--warp", .real(FleetClock.warpRange)),
        (["beekon-bench", "fleet"], "--max-connections", .integer(RunOptions.maxConnectionsRange)),
        (["beekon-bench", "fleet"], "--spread", .duration),
        (["beekon-bench", "fleet"], "--seconds", .real(NumberRange(0.1...86_400))),
        (["beekon-bench", "fleet"], "--threshold", .integer(SyncConfig.syncThresholdRange)),
        (["beekon-bench", "admin"], "--requests", .integer(NumberRange.integer(1...1_000_000))),
        (["beekon-bench", "device"], "--fixes", .integer(NumberRange.integer(1000...100_000_000))),
        (["beekon-bench", "store"], "--stores", .integer(DeviceGroup.countRange)),
        (["beekon-bench", "store"], "--commits", .integer(NumberRange.integer(1...10_000_000))),
        (["beekon-bench", "store"], "--rounds", .integer(NumberRange.integer(1...10_000_000))),
        (["beekon-bench", "store"], "--encode-iterations", .integer(NumberRange.integer(1...10_000_000))),
        (["beekon-bench", "upload"], "--seconds", .real(NumberRange(0.1...86_400))),
        (["beekon-bench", "upload"], "--wrk-threads", .integer(NumberRange.integer(1...256))),
        (["beekon-bench", "upload"], "--wrk-connections", .integer(NumberRange.integer(1...100_000))),
        (["beekon-bench", "upload"], "--nginx-workers", .integer(NumberRange.integer(1...256))),
        (["beekon-bench", "upload"], "--locust-users", .integer(NumberRange.integer(1...10_000))),
    ]

    static let hostile = ["nan", "inf", "-inf", "1e300", "5e-324", "-1", "0", "9223372036854775808", "x"]

    /// Every flag with every hostile value its range refuses (a value it takes would start the command).
    static var cases: [(command: [String], flag: String, value: String)] {
        flags.flatMap { flag in hostile.filter { !flag.kind.accepts($0) }.map { (flag.command, flag.flag, $0) } }
    }

    @Test(
        "every numeric flag refuses what its range refuses: exit 64 naming the flag, the value and the range",
        arguments: cases)
    func hostileFlag(command: [String], flag: String, value: String) async throws {
        let (status, errors, _) = try await Self.runToExit(command + ["\(flag)=\(value)"])
        #expect(status == 64, "\(errors)")
        #expect(errors.contains("The value '\(value)' is invalid for '\(flag) <"), "\(errors)")
        #expect(errors.contains("\"\(value)\" is") && errors.contains("; expected "), "\(errors)")
    }

    @Test("validate lists every out-of-range number of a fleet file and exits 64, as run does")
    func validateListsAll() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "beekon-numbers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try "lat,lon\n51.5,-0.12\n51.6,-0.13\n".write(
            to: folder.appendingPathComponent("r.csv"), atomically: true, encoding: .utf8)
        let path = folder.appendingPathComponent("fleet.yaml").path
        try """
        clock: {warp: 1e300}
        groups:
          - name: g
            count: 9223372036854775808
            route: r.csv
            spread: .nan
        """.write(toFile: path, atomically: true, encoding: .utf8)
        let (status, _, text) = try await Self.runToExit(["beekon-fleet", "validate", path])
        #expect(status == 64)
        #expect(
            text.contains(
                "\(path):1:15: error: `clock.warp` \"1e300\" is out of range; expected a number from 0.01 to 10000"),
            "\(text)")
        #expect(text.contains("\(path):4:12: error: `count` \"9223372036854775808\" is out of range"), "\(text)")
        #expect(text.contains("\(path):6:13: error: `spread` \".nan\" is not a duration"), "\(text)")
    }
}
