import BeekonDevice
import Foundation
import Testing

@testable import FleetKit

/// Runs small fleets at a high warp against an ingest server on loopback.
@Suite("Fleet runtime", .serialized)
struct FleetRuntimeTests {
    /// A temporary folder with a 2 km walking route in it, removed by `cleanUp()`.
    struct Workspace {
        let folder: URL

        init() throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("beekon-runtime-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            var csv = "lat,lon\n"
            for index in 0...20 {
                csv += "\(52.5 + Double(index) * 0.0009),13.4\n"
            }
            try csv.write(to: folder.appendingPathComponent("walk.csv"), atomically: true, encoding: .utf8)
        }

        var data: String { folder.appendingPathComponent("data").path }

        func fleet(_ yaml: String) throws -> FleetFile {
            let path = folder.appendingPathComponent("fleet.yaml").path
            try yaml.write(toFile: path, atomically: true, encoding: .utf8)
            return try FleetFile.load(path: path)
        }

        /// Runs `fleet` for `virtualMinutes` of virtual time, every answer taking 100 virtual ms (so
        /// a loaded machine at warp 3000 does not turn answers into timeouts).
        func run(_ fleet: FleetFile, ingest: String, virtualMinutes: Int64, dataDirectory: String? = nil) throws -> FleetMetrics {
            let runtime = try FleetRuntime(
                fleet: fleet,
                options: RunOptions(
                    dataDirectory: dataDirectory ?? data, ingest: ingest, realDurationMillis: 60_000,
                    virtualDurationMillis: virtualMinutes * 60_000, routeFolder: folder.path, transferTiming: .deterministic))
            try runtime.run(progressEverySeconds: 3600)
            return runtime.metrics
        }

        func cleanUp() {
            try? FileManager.default.removeItem(at: folder)
        }
    }

    static func yaml(devices: Int = 20, sync: String = "{syncThreshold: 5, intervalSeconds: 60}", faults: String = "") -> String {
        """
        name: test
        seed: 7
        clock: {start: 2026-06-15T08:00:00Z, warp: 3000}
        groups:
          - name: walkers
            count: \(devices)
            platform: {ios: 0.5, android: 0.5}
            route: walk.csv
            pace: walk
            startOffset: random
            config:
              preset: precision
              whenStationary: keepTracking
              sync: \(sync)
        \(faults)
        """
    }

    @Test("every admitted fix arrives exactly once by id, and a 500 then a 200 reuses the batch_id")
    func deliversOnceWithRetries() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let server = try IngestTestServer { context in
            IngestTestServer.Answer(status: context.priorUploads == 0 ? 500 : 200)
        }
        defer { server.stop() }
        let metrics = try workspace.run(try workspace.fleet(Self.yaml()), ingest: server.url, virtualMinutes: 30)
        let snapshot = server.snapshot
        #expect(metrics.fixesStored > 200)
        #expect(snapshot.malformedCount == 0, "the server found payloads that break seed 05")
        #expect(snapshot.acceptedLocationIDs.count == snapshot.uniqueAcceptedLocationIDs.count, "a fix was accepted twice")
        #expect(snapshot.uniqueAcceptedLocationIDs.count + metrics.pending == metrics.fixesStored)
        let byDevice = Dictionary(grouping: snapshot.uploads, by: \.installID)
        #expect(byDevice.count == 20)
        for (_, uploads) in byDevice where uploads.count >= 2 {
            #expect(uploads[0].status == 500)
            #expect(uploads[1].batchID == uploads[0].batchID, "the retry did not reuse the batch_id")
            #expect(uploads[1].locationIDs == uploads[0].locationIDs)
        }
    }

    @Test("a 400 drops the batch: its fixes are never sent again")
    func rejectedBatchIsDropped() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let server = try IngestTestServer { context in
            IngestTestServer.Answer(status: context.priorUploads == 0 ? 400 : 200)
        }
        defer { server.stop() }
        _ = try workspace.run(try workspace.fleet(Self.yaml(devices: 5)), ingest: server.url, virtualMinutes: 20)
        let uploads = server.uploads
        let rejected = Set(uploads.filter { $0.status == 400 }.flatMap(\.locationIDs))
        #expect(!rejected.isEmpty)
        let later = uploads.filter { $0.status != 400 }.flatMap(\.locationIDs)
        #expect(later.allSatisfy { !rejected.contains($0) })
    }

    @Test("local-only devices send nothing")
    func localOnly() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let server = try IngestTestServer()
        defer { server.stop() }
        let metrics = try workspace.run(try workspace.fleet(Self.yaml(devices: 5, sync: "false")), ingest: server.url, virtualMinutes: 20)
        #expect(metrics.fixesStored > 50)
        #expect(server.requestCount == 0)
        #expect(metrics.batchesSent == 0)
    }

    @Test("a revoked permission pauses tracking and a re-grant resumes it")
    func permissionPausesAndResumes() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let server = try IngestTestServer()
        defer { server.stop() }
        let faults = """
            faults:
              - {at: 5m, for: 10m, select: all, action: revokePermission}
              - {at: 25m, select: all, action: sync}
            """
        _ = try workspace.run(try workspace.fleet(Self.yaml(devices: 5, faults: faults)), ingest: server.url, virtualMinutes: 30)
        let timestamps = server.uploads.filter(\.accepted).flatMap(\.timestamps).compactMap { Timestamp.unixMillis(parsing: $0) }
        let start: Int64 = 1_781_510_400_000
        let paused = timestamps.filter { $0 > start + 5 * 60_000 + 1000 && $0 < start + 15 * 60_000 }
        #expect(paused.isEmpty, "fixes were stored while permission was revoked")
        #expect(timestamps.contains { $0 > start + 16 * 60_000 }, "tracking did not resume after the re-grant")
        #expect(timestamps.contains { $0 < start + 5 * 60_000 })
    }

    @Test("a timeout after the server took the batch makes the device send the same batch_id again")
    func timeoutsResendSameBatch() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let server = try IngestTestServer()
        defer { server.stop() }
        let faults = """
            faults:
              - {at: 0s, for: 8m, select: all, action: timeouts, params: {fraction: 1}}
              - {at: 0s, for: 20m, select: all, action: latency, params: {ms: 2000}}
            """
        let metrics = try workspace.run(try workspace.fleet(Self.yaml(devices: 5, faults: faults)), ingest: server.url, virtualMinutes: 20)
        let uploads = server.uploads
        let batches = Dictionary(grouping: uploads, by: \.batchID)
        #expect(batches.values.contains { $0.count >= 2 }, "no batch was sent twice after a timeout")
        // Duplicates are whole re-sent batches; every fix still arrives.
        #expect(server.uniqueAcceptedLocationIDs.count + metrics.pending == metrics.fixesStored)
    }

    @Test("a restart on the same data directory resumes the same devices and delivers the rest")
    func restartResumes() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let server = try IngestTestServer { _ in IngestTestServer.Answer(status: 503) }
        defer { server.stop() }
        let fleet = try workspace.fleet(Self.yaml(devices: 5))
        let first = try workspace.run(fleet, ingest: server.url, virtualMinutes: 10)
        #expect(server.uniqueAcceptedLocationIDs.isEmpty)
        let installs = Set(server.uploads.map(\.installID))
        server.setRule { _ in IngestTestServer.Answer(status: 200) }
        let faults = "faults:\n  - {at: 1m, select: all, action: sync}"
        let second = try workspace.run(try workspace.fleet(Self.yaml(devices: 5, faults: faults)), ingest: server.url, virtualMinutes: 10)
        #expect(Set(server.uploads.map(\.installID)) == installs, "the devices got new install ids")
        #expect(server.uniqueAcceptedLocationIDs.count + second.pending == first.fixesStored + second.fixesStored)
        #expect(server.acceptedLocationIDs.count == server.uniqueAcceptedLocationIDs.count)
    }
}

@Suite("Fleet runtime reproducibility", .serialized)
struct FleetReproducibilityTests {
    @Test("the same fleet file and seed give the same devices, sessions and fixes, whatever the network timing")
    func sameSeedSameFixes() throws {
        func run() throws -> (installs: Set<String>, fixes: [String]) {
            let workspace = try FleetRuntimeTests.Workspace()
            defer { workspace.cleanUp() }
            let server = try IngestTestServer()
            defer { server.stop() }
            _ = try workspace.run(try workspace.fleet(FleetRuntimeTests.yaml(devices: 6, sync: "{syncThreshold: 3}")), ingest: server.url, virtualMinutes: 20)
            let start: Int64 = 1_781_510_400_000
            let uploads = server.uploads.filter(\.accepted)
            var fixes: [String] = []
            for upload in uploads {
                for (id, timestamp) in zip(upload.locationIDs, upload.timestamps)
                where (Timestamp.unixMillis(parsing: timestamp) ?? .max) < start + 15 * 60_000 {
                    fixes.append(id)
                }
            }
            return (Set(uploads.map(\.installID)), fixes.sorted())
        }
        let first = try run()
        let second = try run()
        #expect(first.installs.count == 6)
        #expect(first.installs == second.installs)
        #expect(!first.fixes.isEmpty)
        #expect(first.fixes == second.fixes)
    }
}
