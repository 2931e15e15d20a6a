import FleetTestSupport
import Foundation
import Testing

@testable import FleetDescription

/// `run --devices N`: the fleet file's groups scaled to N devices in all, in proportion to their
/// counts, each keeping at least one.
@Suite("Fleet scaled to a device count", .serialized)
struct FleetScaleTests {
    /// A fleet of groups with `counts`, scaled to `devices`.
    static func scaled(_ counts: [Int], to devices: Int) throws -> Result<[Int], FleetFile.ScaleProblem> {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        var yaml = "name: scale\ngroups:\n"
        for (index, count) in counts.enumerated() {
            yaml += "  - {name: g\(index), count: \(count), route: walk.csv}\n"
        }
        return try workspace.fleet(yaml).scaled(toDevices: devices).map { $0.groups.map(\.count) }
    }

    @Test(
        "the groups share the devices in proportion, largest remainders first, at least one each",
        arguments: [
            ([40, 30, 30], 7, [3, 2, 2]), ([40, 30, 30], 100, [40, 30, 30]), ([40, 30, 30], 250, [100, 75, 75]),
            ([40, 30, 30], 3, [1, 1, 1]), ([1, 99], 10, [1, 9]), ([1, 1, 98], 3, [1, 1, 1]), ([5, 5], 3, [2, 1]),
            ([100_000], 1_000_000, [1_000_000]),
        ])
    func shares(counts: [Int], devices: Int, expected: [Int]) throws {
        let result = try Self.scaled(counts, to: devices)
        #expect((try? result.get()) == expected, "\(result)")
        #expect((try? result.get())?.reduce(0, +) == devices)
    }

    @Test("fewer devices than groups is refused, naming both")
    func fewerThanGroups() throws {
        guard case .failure(let problem) = try Self.scaled([40, 30, 30], to: 2) else {
            Issue.record("2 devices over 3 groups was taken")
            return
        }
        #expect(
            problem.description
                == "--devices 2 is fewer than the fleet file's 3 groups; expected at least 3 (one device a group)")
    }

    @Test("run --devices starts that many devices; fewer than the groups, or out of range, exits 64")
    func command() async throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let path = workspace.folder.appendingPathComponent("fleet.yaml").path
        try Workspace.yaml(devices: 20).write(toFile: path, atomically: true, encoding: .utf8)
        let base = ["run", path, "--data", workspace.data, "--admin", "off", "--warp", "max", "--for", "1m"]
        let seven = try await ChildRun.runFleet(base + ["--devices", "7", "--ingest", "http://127.0.0.1:9/i"])
        #expect(seven.output.contains(": 7 devices, data in"), "\(seven.output)\(seven.errors)")
        for bad in ["0", "1000001", "many"] {
            let refused = try await ChildRun.runFleet(base + ["--devices", bad])
            #expect(refused.status == 64, "--devices \(bad): \(refused.errors)")
            #expect(refused.errors.contains("--devices"), "\(refused.errors)")
        }
    }
}
