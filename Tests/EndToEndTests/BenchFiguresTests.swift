import Foundation
import Testing

@testable import FleetEngine
@testable import beekon_bench

/// The arithmetic behind `beekon-bench upload`'s Locust figures and `beekon-bench fleet`'s steady
/// window: what the locustfile writes is read back or refused, ratios are per CPU-second on each
/// side, and the steady window starts once every device has spawned.
@Suite("Bench figures")
struct BenchFiguresTests {
    static let window = #"""
        {"seconds": 4.0, "cpu_seconds": 2.0, "uploads": 8000, "fixes": 8000, "failures": 3, \#
        "fixes_per_batch": 1, "users": 64}
        """#

    @Test("the locustfile's window is read with its figures, and Locust's CPU per request follows from them")
    func locustWindowReads() throws {
        let window = try LocustWindow.parse(Data(Self.window.utf8))
        #expect(
            window
                == LocustWindow(
                    seconds: 4, cpuSeconds: 2, uploads: 8000, fixes: 8000, failures: 3, fixesPerBatch: 1, users: 64))
        #expect(window.requestsPerSecond == 2000)
        #expect(window.cpuMicrosPerRequest == 250)
    }

    @Test(
        "a window that is not the locustfile's JSON, or is empty or negative, is refused with what was read",
        arguments: [
            "",
            "locust: error",
            #"{"seconds": 4}"#,
            Self.window.replacingOccurrences(of: #""seconds": 4.0"#, with: #""seconds": 0"#),
            Self.window.replacingOccurrences(of: #""cpu_seconds": 2.0"#, with: #""cpu_seconds": -1"#),
            Self.window.replacingOccurrences(of: #""uploads": 8000"#, with: #""uploads": -5"#),
        ])
    func locustWindowRefused(text: String) {
        #expect(throws: (any Error).self) { try LocustWindow.parse(Data(text.utf8)) }
    }

    @Test("a window without an upload answered 2xx has no CPU per request")
    func noUploadsNoPerRequest() throws {
        let text = Self.window.replacingOccurrences(of: #""uploads": 8000"#, with: #""uploads": 0"#)
        #expect(try LocustWindow.parse(Data(text.utf8)).cpuMicrosPerRequest == nil)
    }

    @Test(
        "the ratio is work per CPU-second on one side over the other's, and says nothing when a side did nothing",
        arguments: [
            (5_000, 1.0, 2_800, 1.0, Double?.some(5_000.0 / 2_800)),
            (1_000, 0.5, 1_000, 2.0, 4),  // same work on a quarter of the CPU
            (18_600, 1.0, 32_000, 1.0, 18_600.0 / 32_000),
            (0, 1.0, 100, 1.0, nil),
            (100, 0, 100, 1.0, nil),
            (100, 1.0, 0, 1.0, nil),
            (100, 1.0, 100, 0, nil),
        ])
    func perCPURatio(count: Int, cpu: Double, otherCount: Int, otherCPU: Double, expected: Double?) {
        let ratio = PerCPU.ratio(count, cpu: cpu, over: otherCount, otherCPU: otherCPU)
        #expect(ratio.map { ($0 * 1e9).rounded() } == expected.map { ($0 * 1e9).rounded() })
    }

    /// A sample at wall second `wall` with `cpu` CPU seconds and the clock at `virtualSeconds`.
    static func sample(wall: Double, cpu: Double, virtualSeconds: Int64) -> BenchFleetRun.Sample {
        var metrics = FleetMetrics()
        metrics.virtualNow = 1_000_000 + virtualSeconds * 1000
        return BenchFleetRun.Sample(wall: wall, cpu: cpu, serverCPU: 0, metrics: .init(metrics))
    }

    @Test(
        """
        the steady window starts at the first sample whose clock has reached the last spawn, ends at the last \
        sample, and gives CPU cores and the warp achieved over it
        """)
    func steadyWindow() throws {
        // Warp 10 until wall 3, then the loop falls behind: 5 virtual s a wall second.
        let samples = [
            Self.sample(wall: 1, cpu: 0.5, virtualSeconds: 10),
            Self.sample(wall: 2, cpu: 1.0, virtualSeconds: 20),
            Self.sample(wall: 3, cpu: 1.5, virtualSeconds: 30),
            Self.sample(wall: 5, cpu: 3.1, virtualSeconds: 40),
        ]
        let window = try #require(BenchFleetRun.window(samples, fromVirtual: 1_000_000 + 15_000))
        #expect(window.startWall == 2 && window.endWall == 5)
        #expect(window.seconds == 3 && window.virtualSeconds == 20)
        #expect(abs(window.cpuCores - 0.7) < 1e-9)
        #expect(abs(window.achievedWarp - 20.0 / 3) < 1e-9)
        // No sample reached the instant, or only the last one did: no window.
        #expect(BenchFleetRun.window(samples, fromVirtual: 1_000_000 + 41_000) == nil)
        #expect(BenchFleetRun.window(samples, fromVirtual: 1_000_000 + 40_000) == nil)
    }

    @Test(
        "the last device spawns at spread × (n − 1) / n after the start, as the loop schedules it",
        arguments: [(1, "60s", Int64(0)), (4, "60s", 45_000), (1000, "60s", 59_940), (10, "0s", 0)])
    func lastSpawn(devices: Int, spread: String, expected: Int64) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bench-spawn-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let options = try BenchFleetOptions.parse(["--devices", "\(devices)", "--spread", spread])
        let fleet = try BenchFleetRun(options: options, threshold: 4, gate: .everyFix, seconds: 1)
            .fleet(ingest: "http://127.0.0.1:9/ingest", in: folder)
        #expect(BenchFleetRun.allSpawnedMillis(fleet.groups) == expected)
    }
}
