import BeekonDevice
import FleetTestSupport
import Foundation
import Synchronization
import Testing

@testable import FleetDescription
@testable import FleetEngine
@testable import FleetRuntime

/// The clock of a running fleet that cannot keep up with its warp: pause and warp changes take
/// effect within a turn, whatever the backlog. Asserts on virtual times only (upper bounds).
@Suite("Fleet clock in a running fleet")
struct FleetClockRuntimeTests {
    static let yaml = """
        name: backlog
        seed: 3
        clock: {start: 2026-06-15T08:00:00Z, warp: 10000}
        groups:
          - name: walkers
            count: 100
            route: walk.csv
            pace: walk
            startOffset: random
            config: {preset: precision, whenStationary: keepTracking, sync: false}
        """

    /// Sends a clock command and waits for the loop's answer.
    static func setClock(_ runtime: FleetRuntime, warp: Double? = nil, paused: Bool? = nil) -> Bool {
        let answered = DispatchSemaphore(value: 0)
        let succeeded = Mutex(false)
        runtime.updateFleet(warp: warp.map { Warp.rate($0) }, paused: paused, devices: nil) { result in
            if case .success = result { succeeded.withLock { $0 = true } }
            answered.signal()
        }
        guard answered.wait(timeout: .now() + 20) == .success else { return false }
        return succeeded.withLock { $0 }
    }

    static func realMillis() -> Int64 {
        Int64(DispatchTime.now().uptimeNanoseconds / 1_000_000)
    }

    @Test("a fleet far behind its warp stops at once when paused, and slows at once to a lower warp")
    func pauseAndSlowDownWithABacklog() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let runtime = try FleetRuntime(
            fleet: try workspace.fleet(Self.yaml),
            options: RunOptions(
                dataDirectory: workspace.data, realDurationMillis: 60_000, routeFolder: workspace.folder.path))
        let start = try #require(Timestamp.unixMillis(parsing: "2026-06-15T08:00:00.000Z"))
        let runner = Thread { _ = try? runtime.run(progressEverySeconds: 3600) }
        runner.start()
        defer { runtime.stop() }
        // Let a backlog build: 100 devices ticking each virtual second at warp 10 000 are more
        // timers than any machine fires, so the clock drops lag.
        var polls = 0
        while runtime.metrics.clockLagDroppedMillis == 0 && polls < 400 {
            Thread.sleep(forTimeInterval: 0.05)
            polls += 1
        }
        #expect(runtime.metrics.clockLagDroppedMillis > 0, "the fleet never fell behind, so this test shows nothing")

        #expect(Self.setClock(runtime, paused: true))
        let paused = runtime.snapshot
        #expect(paused.paused && paused.virtualNow > start)
        Thread.sleep(forTimeInterval: 0.4)
        #expect(runtime.snapshot.virtualNow == paused.virtualNow, "virtual time advanced after the pause")
        #expect(runtime.metrics.virtualNow == paused.virtualNow)

        let before = Self.realMillis()
        #expect(Self.setClock(runtime, warp: 1, paused: false))
        let resumed = runtime.snapshot
        #expect(!resumed.paused && resumed.warp == 1)
        Thread.sleep(forTimeInterval: 0.5)
        let later = runtime.metrics.virtualNow
        let elapsed = Self.realMillis() - before
        // At warp 1 the clock cannot pass the time reached by more than the real time elapsed.
        #expect(later - resumed.virtualNow <= elapsed + 1, "virtual time raced ahead after the warp dropped to 1")
        #expect(later >= resumed.virtualNow)
        runtime.stop()
        var joins = 0
        while !runner.isFinished && joins < 400 {
            Thread.sleep(forTimeInterval: 0.05)
            joins += 1
        }
    }
}
