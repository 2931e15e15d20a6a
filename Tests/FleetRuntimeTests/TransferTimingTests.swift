import BeekonDevice
import FleetTestSupport
import Foundation
import IngestReceiver
import Testing

@testable import FleetEngine
@testable import FleetRuntime

/// The network on the virtual clock, end to end against a real loopback server: a real answer's
/// time counts × warp. (Injected latency, timeouts and every outcome at exact instants are
/// tested on the simulated driver: `SimulatedFleetTests`.)
@Suite("Transfers on virtual time", .serialized)
struct TransferTimingTests {
    @Test(
        """
        a server slower than the SDK's timeout at this warp: the \
        device hears timeout exactly 30 virtual s after it sent
        """
    )
    func slowServerTimesOut() async throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        // 500 ms of real time is 1,500 virtual s at warp 3000: far past the SDK's 30 s.
        let server = try workspace.receiver { $0.script.latencyMillis = 500 }
        defer { server.stop() }
        let runtime = try await workspace.runtime(Workspace.yaml(warp: 3000), ingest: server.url, virtualMinutes: 10)
        let records = runtime.snapshot.devices.flatMap(\.uploads)
        #expect(!records.isEmpty)
        #expect(
            records.allSatisfy { $0.outcome == .warpTimeout && $0.latencyMillis == 30_000 }, "\(records.prefix(3))"
        )
        // The warp's timeout, not the server's: 30 virtual s is 10 real ms at warp 3000.
        #expect(runtime.metrics.batchesByOutcome.keys.sorted() == [.warpTimeout])
        #expect(runtime.metrics.cancelledOnWire > 0, "the devices' requests were closed as they gave up")
        #expect(!server.uploadLog().isEmpty, "the server got the batches the devices gave up on")
        #expect(runtime.metrics.slowAnswers + runtime.metrics.answersAfterTimeout > 0)
    }
}

/// Modelled timing (`run --deterministic`): the answer instant comes from the model, not from
/// the server's speed.
@Suite("Modelled transfer timing", .serialized)
struct ModelledTransferTimingTests {
    @Test(
        """
        every answer is heard exactly 100 virtual ms after the send (2,100 with a 2 s \
        injected latency), even from a server whose real time would be a timeout at this warp
        """,
        arguments: [(0, 100.0), (2_000, 2_100.0)])
    func answersTakeTheModelledTime(injectedMillis: Int, expected: Double) async throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        // 50 ms of real time is 150 virtual s at warp 3000.
        let server = try workspace.receiver { $0.script.latencyMillis = 50 }
        defer { server.stop() }
        let faults =
            injectedMillis == 0
            ? ""
            : """
            faults:
              - {at: 0s, for: 1h, select: all, action: latency, params: {ms: \(injectedMillis)}}
            """
        let runtime = try await workspace.runtime(
            Workspace.yaml(warp: 3000, faults: faults), ingest: server.url, virtualMinutes: 2,
            timing: .deterministic)
        let records = runtime.snapshot.devices.flatMap(\.uploads)
        #expect(!records.isEmpty)
        #expect(
            records.allSatisfy { $0.outcome == .status(200) && $0.latencyMillis == expected }, "\(records.prefix(3))")
        #expect(
            records.allSatisfy { ($0.serverMillis ?? 0) >= 50 }, "the server's real time is kept beside the model's")
        // Each device waited for its own answer (150 virtual s of real time at warp 3000); the
        // fleet's clock never held the others for it.
        #expect(runtime.metrics.clockHeldMillis == 0)
    }

    @Test("a timeouts fault under modelled timing: timeout exactly 30 virtual s after the send")
    func injectedTimeout() async throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let server = try workspace.receiver()
        defer { server.stop() }
        let faults = """
            faults:
              - {at: 0s, for: 1h, select: all, action: timeouts, params: {fraction: 1}}
            """
        let runtime = try await workspace.runtime(
            Workspace.yaml(warp: 3000, faults: faults), ingest: server.url, virtualMinutes: 2,
            timing: .deterministic)
        let records = runtime.snapshot.devices.flatMap(\.uploads)
        #expect(!records.isEmpty)
        #expect(records.allSatisfy { $0.outcome == .injectedTimeout && $0.latencyMillis == 30_000 })
    }
}

/// `--deterministic` runs: the same fleet file, seed and answers send the same requests.
@Suite("Deterministic runs", .serialized)
struct DeterministicRunTests {
    /// One run on a fresh folder: its digest and what the server got, by install, in order.
    static func run(
        warp: Int, seed: Int = 7, maxWarp: Bool = false, loops: Int = 1, network: String = ""
    ) async throws -> (
        digest: RequestDigest, uploads: [String: [String]], metrics: FleetMetrics, files: [String: String]
    ) {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        // Answers that depend only on the requests: each install's first upload is refused (503).
        let server = try workspace.receiver { $0.script = AnswerScript(failFirst: 1, failFirstStatus: 503) }
        defer { server.stop() }
        let faults = """
            faults:
              - {at: 4m, for: 3m, select: {fraction: 0.5}, action: latency, params: {ms: 1500}}
              - {at: 9m, for: 2m, select: all, action: timeouts, params: {fraction: 0.5}}
              - {at: 12m, for: 2m, select: {fraction: 0.4}, action: networkOffline}
              - {at: 2m, for: 11m, select: {fraction: 0.5}, action: networkProfile, params: {profile: lossy}}
            """
        let yaml = Workspace.yaml(devices: 6, sync: "{syncThreshold: 4, intervalSeconds: 60}", faults: faults)
            .replacingOccurrences(of: "warp: 3000", with: "warp: \(warp)")
            .replacingOccurrences(of: "seed: 7", with: "seed: \(seed)")
            .replacingOccurrences(of: "groups:\n", with: network + "groups:\n")
        let runtime = try await workspace.runtime(
            yaml, ingest: server.url, virtualMinutes: 20, timing: .deterministic, maxWarp: maxWarp, loops: loops)
        let uploads = server.uploadsByInstall()
        var files: [String: String] = [:]
        for name in ["devices.json", ClockRecord.fileName] {
            files[name] = try String(contentsOfFile: "\(workspace.data)/\(name)", encoding: .utf8)
        }
        return (runtime.metrics.sent, uploads, runtime.metrics, files)
    }

    @Test(
        """
        a run split over 2 or 3 loops, each on its own thread with a shard of the devices, sends \
        the same requests as one loop, counts the same fixes and uploads, and leaves the same \
        devices.json and clock.json, at warp 3000 and at max warp
        """
    )
    func loopsSendTheSameRequests() async throws {
        for maxWarp in [false, true] {
            let one = try await Self.run(warp: 3000, maxWarp: maxWarp)
            #expect(one.digest.count > 20, "too few requests to compare: \(one.digest.count)")
            for loops in [2, 3] {
                let split = try await Self.run(warp: 3000, maxWarp: maxWarp, loops: loops)
                #expect(split.digest == one.digest, "\(loops) loops, max warp \(maxWarp)")
                #expect(split.uploads == one.uploads, "\(loops) loops, max warp \(maxWarp)")
                #expect(split.metrics.fixes.ledger == one.metrics.fixes.ledger)
                #expect(split.metrics.batchesByOutcome == one.metrics.batchesByOutcome)
                #expect(split.metrics.devices == one.metrics.devices)
                #expect(split.metrics.devicesByState == one.metrics.devicesByState)
                // The server's real time is the server's, not the seed's: the rest of a row repeats.
                let seeded = { (rows: [RunHistory.Row]) in
                    rows.map { row in
                        var row = row
                        row.serverLatency = CoarseHistogram()
                        return row
                    }
                }
                #expect(seeded(split.metrics.history.rows) == seeded(one.metrics.history.rows))
                // The backlog before and at the end of each fault, as of its instants.
                let backlogs = { (drains: [FaultDrain]) in drains.map { [$0.fault, $0.pendingBefore, $0.pendingAtEnd] }
                }
                #expect(backlogs(split.metrics.drains) == backlogs(one.metrics.drains), "\(loops) loops")
                #expect(split.files == one.files)
            }
        }
    }

    @Test(
        """
        two runs of one fleet file and seed send the same requests \
        in the same order, at warp 600, at warp 3000 and at max warp
        """
    )
    func sameRequests() async throws {
        let first = try await Self.run(warp: 3000)
        let second = try await Self.run(warp: 3000)
        let slower = try await Self.run(warp: 600)
        #expect(first.digest.count > 20, "too few requests to compare: \(first.digest.count)")
        #expect(first.uploads == second.uploads)
        #expect(first.digest == second.digest)
        #expect(first.uploads == slower.uploads)
        #expect(first.digest == slower.digest)
        let fastest = try await Self.run(warp: 3000, maxWarp: true)
        #expect(first.uploads == fastest.uploads)
        #expect(first.digest == fastest.digest)
        // The drains too: the backlog is read as of each fault's instants, not when the loop got
        // there (at max warp, devices run ahead of the fleet's clock).
        #expect(first.metrics.drains.count == 4)
        // The lossy network failed some uploads as the fleet's own, the same in every run.
        let injected = first.metrics.batchesByOutcome.filter { if case .injected = $0.key { true } else { false } }
        #expect(!injected.isEmpty, "\(first.metrics.batchesByOutcome)")
        for run in [second, slower, fastest] { #expect(run.metrics.drains == first.metrics.drains) }
        let otherSeed = try await Self.run(warp: 3000, seed: 8)
        #expect(otherSeed.digest != first.digest, "the digest does not depend on what was sent")
    }

    @Test(
        """
        source addresses change where requests leave from, not what they carry: the server gets \
        the same uploads as without them, the digest covers the addresses, and it repeats at \
        another warp and over 2 loops
        """
    )
    func sourceAddressesReplay() async throws {
        let network = "network: {sourceAddresses: 127.0.0.2-127.0.0.5}\n"
        let plain = try await Self.run(warp: 3000)
        let spread = try await Self.run(warp: 3000, network: network)
        #expect(spread.uploads == plain.uploads)
        #expect(spread.digest.count == plain.digest.count)
        #expect(spread.digest != plain.digest, "the digest does not cover the source address")
        let slower = try await Self.run(warp: 600, network: network)
        let split = try await Self.run(warp: 3000, loops: 2, network: network)
        for run in [slower, split] {
            #expect(run.digest == spread.digest)
            #expect(run.uploads == spread.uploads)
        }
    }
}

/// `--warp max`: the clock jumps to the next event once the due work is done.
@Suite("Max warp", .serialized)
struct MaxWarpTests {
    @Test(
        """
        a max-warp run ends by its virtual limit, says it runs at max warp, and \
        a warp set through the control API hands the clock back to the wall
        """
    )
    func maxWarpRunsAndHandsBack() async throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let server = try workspace.receiver()
        defer { server.stop() }
        // A virtual hour ends the run long before its two real minutes.
        let finished = try await workspace.runtime(
            Workspace.yaml(warp: 60), ingest: server.url, virtualMinutes: 60, timing: .deterministic,
            maxWarp: true)
        let snapshot = finished.snapshot
        #expect(snapshot.maxWarp)
        #expect(snapshot.virtualNow == snapshot.endsAt)
        #expect(snapshot.warp > 60, "an hour at the rate reached took longer than at warp 60")
        #expect(!server.uploadLog().isEmpty)

        // Without a virtual limit: a warp set leaves max warp from the time reached.
        let runtime = try FleetRuntime(
            fleet: try workspace.fleet(Workspace.yaml(warp: 60)),
            options: {
                var options = RunOptions(
                    dataDirectory: workspace.data + "-2", ingest: server.url, realDurationMillis: 60_000,
                    routeFolder: workspace.folder.path, transferTiming: .deterministic)
                options.warp = .max
                return options
            }())
        let done = runtime.runOnThread()
        defer { runtime.stop() }
        let reached = try await offPool { runtime.waitFor { $0.virtualNow > Workspace.start + 600_000 } }
        #expect(reached != nil, "ten virtual minutes did not pass")
        let set = DispatchSemaphore(value: 0)
        runtime.updateFleet(warp: .rate(1), paused: nil, devices: nil) { _ in set.signal() }
        #expect(try await offPool { set.wait(timeout: .now() + 30) } == .success)
        let handedBack = runtime.snapshot
        #expect(!handedBack.maxWarp && handedBack.warp == 1)
        // At warp 1 the clock now moves at the wall's pace: far less than a virtual minute in a real second.
        try await Task.sleep(for: .seconds(1))
        #expect(runtime.snapshot.virtualNow - handedBack.virtualNow < 60_000)
        runtime.stop()
        #expect(try await offPool { done.wait(timeout: .now() + 30) } == .success)
    }

    @Test(
        """
        a run at warp 60 timed as answered, set to max through the control API: the clock leaves \
        the wall behind, answers are modelled from then on, and the data folder's clock record is a \
        horizon ahead
        """
    )
    func setToMaxMidRun() async throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let server = try workspace.receiver()
        defer { server.stop() }
        let runtime = try FleetRuntime(
            fleet: try workspace.fleet(Workspace.yaml(warp: 60)),
            options: RunOptions(
                dataDirectory: workspace.data, ingest: server.url, realDurationMillis: 60_000,
                routeFolder: workspace.folder.path, transferTiming: .asAnswered))
        let done = runtime.runOnThread()
        defer { runtime.stop() }
        let started = try await offPool { runtime.waitFor { $0.virtualNow > Workspace.start + 5_000 } }
        #expect(started != nil)
        #expect(!runtime.snapshot.maxWarp && !runtime.snapshot.deterministic)
        let set = DispatchSemaphore(value: 0)
        runtime.updateFleet(warp: .max, paused: nil, devices: nil) { _ in set.signal() }
        #expect(try await offPool { set.wait(timeout: .now() + 30) } == .success)
        #expect(runtime.snapshot.maxWarp && runtime.snapshot.deterministic)
        // Half a virtual hour, at a rate far past the run's warp of 60.
        let far = try await offPool { runtime.waitFor { $0.virtualNow > Workspace.start + 1_800_000 } }
        // (How far past 60 the rate gets is the machine's; `beekon-bench` measures it.)
        #expect(far != nil && far?.maxWarp == true)
        let record = try #require(try RunFiles.readClock(workspace.data))
        #expect(record.reachedMillis > runtime.snapshot.virtualNow)
        runtime.stop()
        #expect(try await offPool { done.wait(timeout: .now() + 30) } == .success)
        let heard = runtime.snapshot.devices.flatMap(\.uploads).filter { $0.at > Workspace.start + 60_000 }
        #expect(!heard.isEmpty && heard.allSatisfy { $0.latencyMillis == 100 })
    }

    @Test("max warp with timing as answered is refused: every real answer would be a timeout")
    func maxWarpNeedsModelledTiming() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let options = RunOptions(
            dataDirectory: workspace.data, ingest: "http://127.0.0.1:9/ingest", warp: .max,
            routeFolder: workspace.folder.path, transferTiming: .asAnswered)
        #expect(throws: RunError.self) {
            try FleetRuntime(fleet: try workspace.fleet(Workspace.yaml(warp: 60)), options: options)
        }
    }
}

/// A hung server does not stall a modelled run: its real request ends at the wall-clock bound,
/// and the device hears the SDK's timeout at its virtual deadline.
@Suite("Modelled timing and a hung server", .serialized)
struct HungServerTests {
    @Test(
        """
        with modelled timing, uploads to a server that never answers are heard \
        as timeout exactly 30 virtual s after the send, and the run goes on
        """
    )
    func hungServerTimesOut() async throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        // Every upload hangs for 10 real minutes: never answered, for any run that waits a second.
        let server = try workspace.receiver {
            $0.script = AnswerScript(mix: [MixEntry(.hang, percent: 100)], hangMillis: 600_000)
        }
        defer { server.stop() }
        var options = RunOptions(
            dataDirectory: workspace.data, ingest: server.url, realDurationMillis: 60_000,
            virtualDurationMillis: 3 * 60_000,
            routeFolder: workspace.folder.path, transferTiming: .deterministic)
        options.realTimeoutMillis = 1_000
        let runtime = try FleetRuntime(
            fleet: try workspace.fleet(Workspace.yaml(warp: 3000)), options: options)
        let end = try await offPool { try runtime.run(progressEverySeconds: 3600) }
        #expect(end == .virtualTimeLimit(millis: 3 * 60_000))
        let records = runtime.snapshot.devices.flatMap(\.uploads)
        #expect(records.count >= 3)
        #expect(
            records.allSatisfy {
                $0.outcome == .failed(.timeout) && $0.latencyMillis == 30_000 && $0.serverMillis == nil
            },
            "\(records.prefix(3))")
    }
}
