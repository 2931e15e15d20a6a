import Foundation
import InMemoryLogging
import Logging
import Testing

@testable import FleetEngine
@testable import FleetRuntime

/// The real driver logs to the `Logger` its runtime is given: the engine's news and its own,
/// each at its level, while the engine itself holds no logger.
@Suite("Real driver logging")
struct RealDriverLoggingTests {
    @Test(
        "a clock.json that cannot be written is one error, however many writes fail; debug says where the clock starts"
    )
    func clockFileError() async throws {
        let workspace = try FleetRuntimeTests.Workspace()
        defer { workspace.cleanUp() }
        let server = try workspace.receiver()
        defer { server.stop() }
        // A folder where the write's temporary file goes: every write of clock.json fails.
        let blocker = workspace.data + "/" + ClockRecord.fileName + ".tmp"
        try FileManager.default.createDirectory(atPath: blocker, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: blocker + "/keep", contents: Data())
        let handler = InMemoryLogHandler()
        var logger = Logger(label: "beekon-fleet") { _ in handler }
        logger.logLevel = .debug
        let options = RunOptions(
            dataDirectory: workspace.data, ingest: server.url, realDurationMillis: 120_000,
            virtualDurationMillis: 20 * 60_000, routeFolder: workspace.folder.path)
        let runtime = try FleetRuntime(
            fleet: try workspace.fleet(FleetRuntimeTests.yaml(devices: 2)), options: options, logger: logger)
        _ = try await offPool { try runtime.run(progressEverySeconds: 3600) }
        let errors = handler.entries.filter { $0.level == .error }
        #expect(errors.count == 1, "\(handler.entries)")
        #expect(
            errors.first?.message.description.hasPrefix(
                "cannot record the virtual clock in \(workspace.data)/\(ClockRecord.fileName): ") == true,
            "\(errors)")
        let starts = handler.entries.filter { $0.level == .debug && $0.message == "the virtual clock starts" }
        #expect(starts.count == 1, "\(handler.entries)")
        #expect(starts.first?.metadata["at"] == "2026-06-15T08:00:00.000Z")
        #expect(starts.first?.metadata["seed"] == "7")
        #expect(!handler.entries.contains { $0.level == .trace }, "a trace entry passed a debug logger")
    }

    @Test("a devices.json that cannot be written is an error naming the file and what a resumed run would miss")
    func installIDsFileError() async throws {
        let workspace = try FleetRuntimeTests.Workspace()
        defer { workspace.cleanUp() }
        let server = try workspace.receiver()
        defer { server.stop() }
        // A folder where the write's temporary file goes: every write of devices.json fails.
        let blocker = workspace.data + "/devices.json.tmp"
        try FileManager.default.createDirectory(atPath: blocker, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: blocker + "/keep", contents: Data())
        let handler = InMemoryLogHandler()
        let logger = Logger(label: "beekon-fleet") { _ in handler }
        let options = RunOptions(
            dataDirectory: workspace.data, ingest: server.url, realDurationMillis: 120_000,
            virtualDurationMillis: 60_000, routeFolder: workspace.folder.path)
        let runtime = try FleetRuntime(
            fleet: try workspace.fleet(FleetRuntimeTests.yaml(devices: 2)), options: options, logger: logger)
        _ = try await offPool { try runtime.run(progressEverySeconds: 3600) }
        let errors = handler.entries.filter { $0.level == .error }.map(\.message.description)
        let expected = "cannot record the devices' install ids in \(workspace.data)/devices.json: "
        #expect(errors.contains { $0.hasPrefix(expected) && $0.hasSuffix("would not find these devices' stores") })
        #expect(!FileManager.default.fileExists(atPath: workspace.data + "/devices.json"))
    }
}
