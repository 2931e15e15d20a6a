import BeekonDevice
import BeekonStore
import FleetRuntime
import FleetTestSupport
import Foundation
import IngestReceiver
import Testing

/// How `beekon-fleet run` starts, as a child process: a descriptor limit too low is refused up
/// front, a start that fails leaves nothing it created, files are its owner's only, and progress
/// lines reach a pipe as they are printed.
@Suite("Run start", .serialized)
struct RunStartTests {
    /// A fleet file of `devices` walkers at warp 600, in `workspace`; its path.
    static func fleetFile(devices: Int, in workspace: Workspace) throws -> String {
        let path = workspace.folder.appendingPathComponent("fleet.yaml").path
        try Workspace.yaml(devices: devices)
            .replacingOccurrences(of: "warp: 3000", with: "warp: 600")
            .write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Every path under `folder`, relative to it, with its size.
    static func listing(_ folder: String) -> [String: Int] {
        var result: [String: Int] = [:]
        for path in FileManager.default.subpaths(atPath: folder) ?? [] {
            let attributes = try? FileManager.default.attributesOfItem(atPath: folder + "/" + path)
            result[path] = (attributes?[.size] as? Int) ?? 0
        }
        return result
    }

    @Test(
        """
        under ulimit -n 256, a run of 2,000 devices refuses to \
        start, names the numbers and the fix, and creates nothing
        """
    )
    func lowLimitIsRefused() async throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let fleet = try Self.fleetFile(devices: 2000, in: workspace)
        let outcome = try await ChildRun.runFleet(
            ["run", fleet, "--data", workspace.data, "--duration", "5s", "--admin", "127.0.0.1:0"], openFiles: 256)
        let needed = DescriptorBudget.run(
            devices: 2000, maxConnections: 256, idleConnections: 1024, adminConnections: 256, embeddedReceiver: true
        ).needed
        #expect(outcome.status != 0)
        #expect(
            outcome.errors.contains("run of 2000 devices needs at least \(needed) file descriptors"),
            "\(outcome.errors)")
        #expect(outcome.errors.contains("the open-file limit is 256"), "\(outcome.errors)")
        #expect(outcome.errors.contains("`ulimit -n \(needed)`"), "\(outcome.errors)")
        #expect(!FileManager.default.fileExists(atPath: workspace.data))
        #expect(!outcome.output.contains("running"))
    }

    @Test("a start refused for its admin port leaves no data folder it created")
    func failedStartLeavesNothing() async throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let fleet = try Self.fleetFile(devices: 5, in: workspace)
        // A port something already listens on.
        let busy = try workspace.receiver()
        defer { busy.stop() }
        let data = workspace.data + "/nested/data"
        let outcome = try await ChildRun.runFleet([
            "run", fleet, "--data", data, "--duration", "5s", "--admin", "127.0.0.1:\(busy.port)",
        ])
        #expect(outcome.status != 0)
        #expect(outcome.errors.contains("cannot listen on 127.0.0.1:\(busy.port)"), "\(outcome.errors)")
        #expect(
            !FileManager.default.fileExists(atPath: workspace.data), "the start left \(Self.listing(workspace.data))")
    }

    @Test("a start refused for its admin port leaves a data folder that was there, and its stores, as they were")
    func failedStartKeepsWhatWasThere() async throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let fleet = try Self.fleetFile(devices: 5, in: workspace)
        // A store with a fix in it, a devices.json, and a file of the user's.
        let storePath = workspace.data + "/devices/kept/beekon.db"
        let store = try DeviceStore(path: storePath, retention: .syncing)
        var random = SplitMix64(seed: 11)
        var ids = UUIDv7Generator()
        let fix = try #require(
            Location(
                id: ids.next(atUnixMillis: 1_000, using: &random), latitude: 52.5, longitude: 13.4, timestamp: 1_000,
                accuracy: 5, speed: 1, bearing: 90, altitude: 30, quality: nil, trigger: .interval, motion: .moving,
                activity: nil, isMock: false))
        try store.insert(fix, sessionID: "s", now: 2_000)
        store.close()
        try Data(#"{"walkers-0001":"kept"}"#.utf8).write(to: URL(fileURLWithPath: workspace.data + "/devices.json"))
        try Data("notes".utf8).write(to: URL(fileURLWithPath: workspace.data + "/notes.txt"))
        let before = Self.listing(workspace.data)

        // A port something already listens on.
        let busy = try workspace.receiver()
        defer { busy.stop() }
        let outcome = try await ChildRun.runFleet([
            "run", fleet, "--data", workspace.data, "--duration", "5s", "--admin", "127.0.0.1:\(busy.port)",
        ])
        #expect(outcome.status != 0)
        #expect(Self.listing(workspace.data) == before)
        let reopened = try DeviceStore(path: storePath, retention: .syncing)
        #expect(try reopened.history(from: .min, to: .max) == [fix])
        reopened.close()
    }

    @Test(
        """
        receive under ulimit -n 256 refuses to start with the numbers, \
        and a receive refused for its port leaves no database
        """
    )
    func receiveStartChecks() async throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let database = workspace.folder.appendingPathComponent("ingest.db").path
        let low = try await ChildRun.runFleet(
            ["receive", "--listen", "127.0.0.1:0", "--db", database, "--connection-limit", "8192"], openFiles: 256)
        let needed = DescriptorBudget.receive(connectionLimit: 8192).needed
        #expect(low.status != 0)
        #expect(low.errors.contains("receive needs at least \(needed) file descriptors"), "\(low.errors)")
        #expect(low.errors.contains("`ulimit -n \(needed)`"), "\(low.errors)")
        #expect(!FileManager.default.fileExists(atPath: database))

        let busy = try workspace.receiver()
        defer { busy.stop() }
        let taken = try await ChildRun.runFleet(["receive", "--listen", "127.0.0.1:\(busy.port)", "--db", database])
        #expect(taken.status != 0)
        #expect(taken.errors.contains("cannot listen on 127.0.0.1:\(busy.port)"), "\(taken.errors)")
        let left = (try? FileManager.default.contentsOfDirectory(atPath: workspace.folder.path)) ?? []
        #expect(!left.contains { $0.hasPrefix("ingest.db") }, "left \(left)")
    }

    @Test("progress lines reach a pipe while the run goes on, and every file it made is its owner's only")
    func progressIsLineBufferedAndFilesArePrivate() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let fleet = try Self.fleetFile(devices: 10, in: workspace)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ChildRun.fleetExecutable)
        process.arguments = ["run", fleet, "--data", workspace.data, "--duration", "120s", "--admin", "127.0.0.1:0"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

        // The first progress line (printed 5 s in), read within 60 s while the run goes on.
        var printed = ""
        let descriptor = output.fileHandleForReading.fileDescriptor
        let deadline = Date().addingTimeInterval(60)
        while !printed.contains(" | devices: "), Date() < deadline {
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 1000) >= 0 else { break }
            guard ready.revents != 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = read(descriptor, &buffer, buffer.count)
            if count <= 0 { break }
            printed += String(decoding: buffer[..<count], as: UTF8.self)
        }
        #expect(printed.contains(" | devices: "), "no progress line before the deadline or the end: \(printed)")
        #expect(process.isRunning, "the run ended before its first progress line was read")
        kill(process.processIdentifier, SIGTERM)
        _ = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        // SIGTERM is a clean stop: the last clock record says so (a resume starts 1 ms after it).
        #expect(try ResumeRunTests.clockRecord(workspace.data).stopped)

        let data = workspace.data
        var checked = 0
        for path in [""] + (FileManager.default.subpaths(atPath: data) ?? []) {
            let full = path.isEmpty ? data : data + "/" + path
            var info = stat()
            guard stat(full, &info) == 0 else { continue }
            let isFolder = info.st_mode & S_IFMT == S_IFDIR
            #expect(info.st_mode & 0o777 == (isFolder ? 0o700 : 0o600), "\(path.isEmpty ? "the data folder" : path)")
            checked += 1
        }
        let files = FileManager.default.subpaths(atPath: data) ?? []
        #expect(files.contains("ingest.db") && files.contains("devices.json"))
        #expect(files.filter { $0.hasSuffix("/beekon.db") }.count == 10)
        #expect(checked > 20)
    }
}
