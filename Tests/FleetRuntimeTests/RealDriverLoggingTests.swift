import FleetTestSupport
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
    /// Runs two devices for `minutes` of virtual time against the reference receiver, with every
    /// write of the data folder's `file` failing (a folder stands where its temporary file goes),
    /// and returns what the driver logged at `level` and above, where the data folder was (removed
    /// by then), and whether `file` was there at the end.
    static func logsOfRun(
        whereWritesOf file: String, fail minutes: Int64, level: Logger.Level = .info
    ) async throws -> (entries: [InMemoryLogHandler.Entry], data: String, written: Bool) {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let server = try workspace.receiver()
        defer { server.stop() }
        let blocker = workspace.data + "/" + file + ".tmp"
        try FileManager.default.createDirectory(atPath: blocker, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: blocker + "/keep", contents: Data())
        let handler = InMemoryLogHandler()
        var logger = Logger(label: "beekon-fleet") { _ in handler }
        logger.logLevel = level
        let options = RunOptions(
            dataDirectory: workspace.data, ingest: server.url, realDurationMillis: 120_000,
            virtualDurationMillis: minutes * 60_000, routeFolder: workspace.folder.path)
        let runtime = try FleetRuntime(
            fleet: try workspace.fleet(Workspace.yaml(devices: 2)), options: options, logger: logger)
        _ = try await offPool { try runtime.run(progressEverySeconds: 3600) }
        let written = FileManager.default.fileExists(atPath: workspace.data + "/" + file)
        return (handler.entries, workspace.data, written)
    }

    @Test(
        "a clock.json that cannot be written is one error, however many writes fail; debug says where the clock starts"
    )
    func clockFileError() async throws {
        let (entries, data, _) = try await Self.logsOfRun(
            whereWritesOf: ClockRecord.fileName, fail: 20, level: .debug)
        let errors = entries.filter { $0.level == .error }
        #expect(errors.count == 1, "\(entries)")
        #expect(
            errors.first?.message.description.hasPrefix(
                "cannot record the virtual clock in \(data)/\(ClockRecord.fileName): ") == true,
            "\(errors)")
        let starts = entries.filter { $0.level == .debug && $0.message == "the virtual clock starts" }
        #expect(starts.count == 1, "\(entries)")
        #expect(starts.first?.metadata["at"] == "2026-06-15T08:00:00.000Z")
        #expect(starts.first?.metadata["seed"] == "7")
        #expect(!entries.contains { $0.level == .trace }, "a trace entry passed a debug logger")
    }

    @Test("a devices.json that cannot be written is an error naming the file and what a resumed run would miss")
    func installIDsFileError() async throws {
        let (entries, data, written) = try await Self.logsOfRun(whereWritesOf: "devices.json", fail: 1)
        let errors = entries.filter { $0.level == .error }.map(\.message.description)
        let expected = "cannot record the devices' install ids in \(data)/devices.json: "
        #expect(errors.contains { $0.hasPrefix(expected) && $0.hasSuffix("would not find these devices' stores") })
        #expect(!written)
    }
}
