import BeekonDevice
import BeekonStore
import Foundation
import Synchronization
import Testing

@testable import FleetKit

/// A real fleet against a loopback ingest server, whose device stores fill up mid-run (SQLite's
/// page limit, see `DeviceStore.limitPagesForTesting`) and get room again.
@Suite("Fleet runtime: store failures", .serialized)
struct StoreFailureRunTests {
    /// Runs `body` on the loop's thread between turns and returns its answer.
    static func onLoop<Answer: Sendable>(
        _ runtime: FleetRuntime, _ body: @escaping @Sendable (inout FleetLoop) -> Answer
    ) throws -> Answer {
        let answer = Mutex<Answer?>(nil)
        let done = DispatchSemaphore(value: 0)
        runtime.submit(
            FleetRuntime.Command(
                run: { driver in
                    let value = body(&driver.engine)
                    return {
                        answer.withLock { $0 = value }
                        done.signal()
                    }
                },
                refuse: { done.signal() }))
        _ = done.wait(timeout: .now() + 60)
        return try #require(answer.withLock { $0 }, "the fleet did not run the command")
    }

    /// Waits (at most a real minute, polling) until `condition` holds for the published snapshot.
    static func waitFor(
        _ what: String, _ runtime: FleetRuntime, _ condition: (FleetSnapshot) -> Bool
    ) throws -> FleetSnapshot {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let snapshot = runtime.snapshot
            if condition(snapshot) { return snapshot }
            Thread.sleep(forTimeInterval: 0.01)
        }
        Issue.record("timed out waiting until \(what)")
        throw CancellationError()
    }

    @Test(
        "a full store shows storeError with SQLite's message and loses fixes by cause, never re-sends an acknowledged fix, and resumes once it has room"
    )
    func fullStoreRecovers() throws {
        let workspace = try FleetRuntimeTests.Workspace()
        defer { workspace.cleanUp() }
        let server = try IngestTestServer()
        defer { server.stop() }
        let lines = Mutex<[String]>([])
        var options = RunOptions(
            dataDirectory: workspace.data, ingest: server.url, warp: 600, realDurationMillis: 120_000,
            routeFolder: workspace.folder.path)
        options.storeLogSink = { line in lines.withLock { $0.append(line) } }
        let devices = 4
        let runtime = try FleetRuntime(
            fleet: try workspace.fleet(FleetRuntimeTests.yaml(devices: devices)), options: options)
        let started = Date()
        let finished = runtime.runOnThread()
        defer { runtime.stop() }

        _ = try Self.waitFor("fixes are uploaded", runtime) { $0.metrics.fixesUploaded > 0 }
        let fullAt = try Self.onLoop(runtime) { loop in
            for slot in loop.slots.indices {
                try? (loop.slots[slot].store as? DeviceStore)?.limitPagesForTesting(1)
            }
            return loop.metrics.virtualNow
        }
        let full = try Self.waitFor("every device is in storeError", runtime) { snapshot in
            snapshot.virtualNow > fullAt + 10 * 60_000
                && snapshot.listed.allSatisfy { $0.state == "storeError" }
        }
        for device in full.listed {
            #expect(device.storeError?.cause == "full")
            #expect(device.storeError?.message == "database or disk is full")
        }
        #expect(full.metrics.devicesByState == ["storeError": devices])
        #expect(full.metrics.fixesLostByCause["full", default: 0] > 0)
        #expect(full.metrics.storeErrorsByCause.keys.sorted() == ["full"])
        #expect(full.metrics.storeErrors >= full.metrics.fixesLostByCause["full", default: 0])
        // A lost fix is not pending: the backlog is what was stored and not yet acknowledged.
        #expect(full.metrics.pending <= full.metrics.fixesStored - full.metrics.fixesUploaded)

        // Acknowledged while full: held, and (below) never sent again.
        let held = try Self.onLoop(runtime) { loop in
            loop.slots.reduce(0) { $0 + (($1.store as? DeviceStore)?.heldDeleteCount ?? 0) }
        }
        #expect(held > 0, "no acknowledged row had its delete fail: the test did not test that")
        let uploadedWhileFull = server.snapshot.uploads.count

        let liftedAt = try Self.onLoop(runtime) { loop in
            for slot in loop.slots.indices {
                try? (loop.slots[slot].store as? DeviceStore)?.limitPagesForTesting(nil)
            }
            return loop.metrics.virtualNow
        }
        let recovered = try Self.waitFor("every device leaves storeError and uploads again", runtime) { snapshot in
            snapshot.virtualNow > liftedAt + 10 * 60_000
                && snapshot.listed.allSatisfy { $0.storeError == nil && $0.state != "storeError" }
        }
        runtime.stop()
        #expect(finished.wait(timeout: .now() + 60) == .success)
        let realMinutes = Int(Date().timeIntervalSince(started) / 60)

        #expect(recovered.metrics.fixesStored > full.metrics.fixesStored)
        let uploads = server.snapshot.uploads
        let after = Set(uploads[uploadedWhileFull...].filter(\.accepted).map(\.installID))
        #expect(after.count == devices, "uploads resumed for \(after.count) of \(devices) devices")
        let sent = uploads.flatMap(\.locationIDs)
        #expect(sent.count == Set(sent).count, "a fix was sent twice")

        // One line per cause per real minute (plus the end-of-run count of what was held back).
        let logged = lines.withLock { $0 }
        #expect(logged.count <= 2 * (realMinutes + 1), "\(logged.count) lines in \(realMinutes + 1) minutes")
        #expect(logged.first?.contains("database or disk is full") == true)
        #expect(logged.contains { $0.contains("more store errors (full) in the last minute") }, "\(logged)")
        #expect(recovered.metrics.storeErrors > logged.count)
    }
}

@Suite("Store error log and retry")
struct StoreErrorLogTests {
    static func error(_ kind: StoreError.Kind) -> StoreError {
        StoreError(kind: kind, code: 13, path: "/data/beekon.db", operation: "insert fix", message: "database or disk is full")
    }

    @Test("one line per cause per real minute, the next one counting what was held back")
    func rateLimited() {
        var lines: [String] = []
        var log = StoreErrorLog()
        let second: UInt64 = 1_000_000_000
        for index in 0..<4_212 {
            lines += [log.report(Self.error(.full), device: "d-\(index)", realNanos: 5 * second + UInt64(index) * 1_000)].compactMap { $0 }
        }
        for (device, second) in [("d-io", 6 * second), ("d-late", 65 * second), ("d-later", 66 * second)] {
            lines += [log.report(Self.error(device == "d-io" ? .ioError : .full), device: device, realNanos: second)].compactMap { $0 }
        }
        lines += log.flush()
        #expect(
            lines == [
                "beekon-fleet: device d-0: \(Self.error(.full))\n",
                "beekon-fleet: device d-io: \(Self.error(.ioError))\n",
                "beekon-fleet: device d-late: \(Self.error(.full)); and 4,211 more store errors (full) in the last minute\n",
                "beekon-fleet: and 1 more store errors (full) in the last minute\n",
            ])
    }

    @Test(
        "numbers are grouped by thousands",
        arguments: [(0, "0"), (999, "999"), (1_000, "1,000"), (4_211, "4,211"), (1_234_567, "1,234,567")])
    func grouped(value: Int, text: String) {
        #expect(StoreErrorLog.grouped(value) == text)
    }

    @Test(
        "a store is retried after 10 s, doubling to at most 5 min",
        arguments: [(0, 10_000), (1, 20_000), (2, 40_000), (4, 160_000), (5, 300_000), (40, 300_000)] as [(Int, Int64)])
    func retryDelay(failed: Int, millis: Int64) {
        var problem = StoreProblem(cause: .full, message: "", since: 0)
        problem.failedRetries = failed
        #expect(problem.retryDelayMillis == millis)
    }
}
