import FleetDescription
import FleetTestSupport
import Foundation
import IngestReceiver
import SQLite
import Testing

@testable import FleetEngine
@testable import FleetRuntime

/// `oemKills:` on the real driver, against the reference receiver over loopback: the minute a
/// killed app misses is missing from what the server stores, and a replay kills the same.
@Suite("OEM kills at the receiver", .serialized)
struct OEMKillReceiverTests {
    /// 4 Xiaomi and 4 Pixel walkers (no tunnels), each with `oemKills`, at `warp`.
    static func yaml(oemKills: String, warp: Int = 3000, bucket: StandbyBucket = .active) -> String {
        """
        name: oem
        seed: 5
        clock: {start: 2026-06-15T08:00:00Z, warp: \(warp)}
        groups:
          - name: xiaomi
            count: 4
            # A fix every 10 s while walking.
            config:
              preset: precision
              minDistanceBetweenLocationsMeters: 5
              whenStationary: keepTracking
              sync: {syncThreshold: 30, intervalSeconds: 60}
            platform: android
            model: [2311DRK48G]
            route: walk.csv
            pace: walk
            provider: {gapsPerHour: 0}
            oemKills: \(oemKills)
            standbyBucket: \(bucket.rawValue)
          - name: pixel
            count: 4
            platform: android
            model: [Pixel 8]
            route: walk.csv
            pace: walk
            provider: {gapsPerHour: 0}
            oemKills: \(oemKills)
            config:
              preset: precision
              minDistanceBetweenLocationsMeters: 5
              whenStationary: keepTracking
              sync: {syncThreshold: 30, intervalSeconds: 60}
        """
    }

    /// The gaps of a minute or more between an install's stored fixes, by install id.
    static func minuteGaps(_ database: String) throws -> [String: Int] {
        try gapSpans(database).mapValues(\.count)
    }

    /// The stretches of a minute or more between an install's stored fixes (from the fix before
    /// to the fix after, Unix ms), by install id.
    static func gapSpans(_ database: String) throws -> [String: [ClosedRange<Int64>]] {
        let rows = try SQLiteConnection(path: database).prepare(
            "SELECT install_id, ts FROM locations ORDER BY install_id, ts")
        defer { rows.reset() }
        var gaps: [String: [ClosedRange<Int64>]] = [:]
        var last: (install: String, ts: Int64)?
        while try rows.step() {
            let install = rows.string(at: 0)
            let ts = rows.int64(at: 1)
            gaps[install, default: []] += []
            if let last, last.install == install, ts - last.ts >= 60_000 {
                gaps[install, default: []].append(last.ts...ts)
            }
            last = (install, ts)
        }
        return gaps
    }

    @Test(
        """
        Xiaomi phones killed at their maker's rate leave a gap of a minute at the server for each \
        kill; Pixels, never killed, leave none; every fix acknowledged is stored
        """
    )
    func gapsAtTheServer() async throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let server = try workspace.receiver()
        defer { server.stop() }
        let runtime = try await workspace.runtime(
            Self.yaml(oemKills: "vendor"), ingest: server.url, virtualMinutes: 16 * 60, timing: .deterministic)
        let metrics = runtime.metrics
        let installs = try JSONDecoder().decode(
            [String: String].self, from: Data(contentsOf: URL(fileURLWithPath: "\(workspace.data)/devices.json")))
        let gaps = try Self.minuteGaps(server.configuration.databasePath)
        var xiaomiGaps = 0
        for index in 0..<4 {
            xiaomiGaps += gaps[try #require(installs[FleetLoop.deviceID(group: "xiaomi", index: index)])] ?? -100
            #expect(gaps[try #require(installs[FleetLoop.deviceID(group: "pixel", index: index)])] == 0)
        }
        #expect(metrics.oemKills >= 3, "\(metrics.oemKills) kills")
        #expect(xiaomiGaps == metrics.oemKills)
        #expect(server.stats().fixesStored == metrics.fixes.ledger.acknowledged)
        #expect(metrics.fixes.unaccounted == 0)
    }

    @Test(
        """
        Xiaomi phones in the working set are back only when WorkManager's deferred restart runs: \
        each relaunch ends one gap at the server, and the gaps last far longer than the minute
        """
    )
    func deferredAtTheServer() async throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let server = try workspace.receiver()
        defer { server.stop() }
        let runtime = try await workspace.runtime(
            Self.yaml(oemKills: "vendor", bucket: .workingSet), ingest: server.url, virtualMinutes: 16 * 60,
            timing: .deterministic)
        let metrics = runtime.metrics
        let gaps = try Self.gapSpans(server.configuration.databasePath)
        var gapMillis: Int64 = 0
        for device in runtime.snapshot.devices where device.group == "xiaomi" {
            let relaunches = device.stateHistory.filter { $0.cause == .workManager }.map(\.at)
            let spans = try #require(gaps[device.installID])
            #expect(spans.count == relaunches.count, "\(device.id): \(spans) \(relaunches)")
            // The first fix after each relaunch comes within a minute of it (a fix each 10 s).
            for (span, back) in zip(spans, relaunches) {
                #expect(span.contains(back) && span.upperBound - back < 60_000, "\(device.id): \(span) \(back)")
            }
            gapMillis += spans.map { $0.upperBound - $0.lowerBound }.reduce(0, +)
        }
        #expect(metrics.oemKills >= 3, "\(metrics.oemKills) kills")
        // Deferrals average an hour; a minute each would be the active bucket.
        #expect(gapMillis > Int64(metrics.oemKills) * 600_000, "\(gapMillis) ms over \(metrics.oemKills) kills")
        #expect(server.stats().fixesStored == metrics.fixes.ledger.acknowledged)
        #expect(metrics.fixes.unaccounted == 0)
    }

    static func replay(warp: Int, maxWarp: Bool = false, loops: Int = 1) async throws -> (
        digest: RequestDigest, uploads: [String: [String]], kills: Int
    ) {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let server = try workspace.receiver()
        defer { server.stop() }
        let runtime = try await workspace.runtime(
            Self.yaml(oemKills: "{perDay: 24}", warp: warp, bucket: .workingSet), ingest: server.url,
            virtualMinutes: 3 * 60,
            timing: .deterministic, maxWarp: maxWarp, loops: loops)
        return (runtime.metrics.sent, server.uploadsByInstall(), runtime.metrics.oemKills)
    }

    @Test(
        """
        the same seed kills at the same instants, defers the same restarts in the working set and \
        sends the same requests, at warp 600, 3000 and max, over 1 and 2 loops
        """
    )
    func replays() async throws {
        let first = try await Self.replay(warp: 3000)
        #expect(first.kills > 5 && first.digest.count > 40, "\(first.kills) kills, \(first.digest.count) requests")
        for other in [
            try await Self.replay(warp: 600), try await Self.replay(warp: 3000, maxWarp: true),
            try await Self.replay(warp: 3000, loops: 2),
        ] {
            #expect(other.kills == first.kills)
            #expect(other.uploads == first.uploads)
            #expect(other.digest == first.digest)
        }
    }
}
