import BeekonDevice
import FleetTestSupport
import Foundation
import IngestReceiver
import Testing

@testable import FleetEngine
@testable import FleetRuntime

/// Phones' clocks as the server sees them: the real driver at warp 1 from `clock.start: now`
/// (so virtual time is the receiver's wall time), uploading to reference receivers in-process.
@Suite("Device clocks at the server", .serialized)
struct DeviceClockReceiverTests {
    /// How much later than at once an upload or a fix may arrive on a loaded machine (real ms): the
    /// windows below are one-sided, so load cannot break them, only widen what they allow.
    static let slackMillis: Int64 = 15_000

    /// A group of two walkers of `platform`, clocks `offset` off, uploading every 3 fixes to `url`.
    static func group(_ name: String, platform: String, offset: String, url: String) -> String {
        """
          - name: \(name)
            count: 2
            platform: \(platform)
            route: walk.csv
            pace: walk
            provider: {gapsPerHour: 0, outlierProbability: 0}
            deviceClock: {offset: \(offset)}
            config:
              preset: precision
              minTimeBetweenLocationsSeconds: 1
              minDistanceBetweenLocationsMeters: 0
              whenStationary: keepTracking
              sync: {url: "\(url)", syncThreshold: 3, intervalSeconds: 60}
        """
    }

    @Test(
        """
        groups 5 minutes ahead and behind: the receiver's clock skew is +300,000 and -300,000 ms \
        (±2 s), and only the iOS group ahead sends fixes from the future (Android GNSS fixes carry \
        satellite time)
        """
    )
    func skewAtTheReceiver() async throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        // One receiver per group, each with its own database.
        let receiver = { (name: String) in
            try workspace.receiver { $0.databasePath = workspace.folder.appendingPathComponent("\(name).db").path }
        }
        let (ahead, behind, gnss) = (try receiver("ahead"), try receiver("behind"), try receiver("gnss"))
        defer {
            ahead.stop()
            behind.stop()
            gnss.stop()
        }
        let yaml = """
            name: clocks
            seed: 5
            clock: {start: now, warp: 1}
            groups:
            \(Self.group("ahead", platform: "ios", offset: "5m", url: ahead.url))
            \(Self.group("behind", platform: "ios", offset: "-5m", url: behind.url))
            \(Self.group("gnss", platform: "android", offset: "5m", url: gnss.url))
            """
        let options = RunOptions(
            dataDirectory: workspace.data, ingest: ahead.url, realDurationMillis: 60_000,
            virtualDurationMillis: 12_000, routeFolder: workspace.folder.path)
        let runtime = try FleetRuntime(fleet: try workspace.fleet(yaml), options: options)
        _ = try await offPool { try runtime.run(progressEverySeconds: 3600) }
        for (name, receiver, skew) in [
            ("ahead", ahead, 300_000), ("behind", behind, -300_000), ("gnss", gnss, 300_000),
        ] {
            let stats = receiver.stats()
            #expect(stats.batchesStored >= 4, "\(name): \(stats.batchesStored) batches")
            #expect(stats.clockSkew.count == stats.batchesStored, "\(name): one skew per first sending")
            // sent_at − arrival is the offset less the upload's time on the way, which a loaded
            // machine only lengthens: a window one-sided in real time.
            let window = Int64(skew) - Self.slackMillis...Int64(skew) + 1_000
            #expect(window.contains(stats.clockSkew.p50), "\(name): skew p50 \(stats.clockSkew.p50)")
            #expect(window.contains(stats.clockSkew.p1), "\(name): skew p1 \(stats.clockSkew.p1)")
            #expect(window.contains(stats.clockSkew.p99), "\(name): skew p99 \(stats.clockSkew.p99)")
            for upload in receiver.uploadLog() {
                #expect(window.contains(upload.sentAt - upload.receivedAt), "\(name): \(upload)")
            }
        }
        // Fixes stamped on a clock 5 minutes ahead arrive from the future; behind, or GNSS, never.
        let aheadStats = ahead.stats()
        #expect(aheadStats.fixesStored > 0 && aheadStats.fixesFromFuture == aheadStats.fixesStored)
        // Age is arrival − fix time: the clock's offset back, plus the wait, which load only lengthens.
        #expect((-301_000...(-300_000 + Self.slackMillis)).contains(aheadStats.fixAge.p50), "\(aheadStats.fixAge)")
        #expect(behind.stats().fixesFromFuture == 0 && behind.stats().fixesStored > 0)
        #expect((299_000...(300_000 + Self.slackMillis)).contains(behind.stats().fixAge.p50), "\(behind.stats())")
        #expect(gnss.stats().fixesFromFuture == 0 && gnss.stats().fixesStored > 0)
        #expect(gnss.stats().fixAge.p99 < Self.slackMillis, "GNSS fix age \(gnss.stats().fixAge.p99)")
        let text = aheadStats.prometheusText()
        #expect(text.contains("beekon_receiver_fixes_from_future_total \(aheadStats.fixesStored)\n"))
        #expect(
            text.contains(
                "beekon_receiver_clock_skew_seconds{quantile=\"0.5\"} \(Double(aheadStats.clockSkew.p50) / 1000)\n"))
    }
}

/// `--deterministic` runs with phone clocks: the same seed gives the same offsets, drifts, NTP
/// jumps and clock faults, so the same requests, whatever the warp or the number of loops.
@Suite("Device clocks replay", .serialized)
struct DeviceClockReplayTests {
    /// One run on a fresh folder: its digest and what the server got, by install, in order.
    static func run(warp: Int, maxWarp: Bool = false, loops: Int = 1) async throws -> (
        digest: RequestDigest, uploads: [String: [String]]
    ) {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let server = try workspace.receiver { $0.script = AnswerScript(failFirst: 1, failFirstStatus: 503) }
        defer { server.stop() }
        let faults = """
                deviceClock: {offset: 30s, spread: 2m, driftPpm: 300, ntp: {every: 5m}}
            faults:
              - {at: 4m, select: {fraction: 0.5}, action: clockJump, params: {seconds: -240}}
              - {at: 9m, for: 3m, select: all, action: clockOffset, params: {seconds: 3600}}
            """
        let yaml = Workspace.yaml(devices: 6, sync: "{syncThreshold: 4, intervalSeconds: 60}", faults: faults)
            .replacingOccurrences(of: "warp: 3000", with: "warp: \(warp)")
        #expect(try workspace.fleet(yaml).groups[0].deviceClock?.ntpEveryMillis == 300_000)
        let runtime = try await workspace.runtime(
            yaml, ingest: server.url, virtualMinutes: 16, timing: .deterministic, maxWarp: maxWarp, loops: loops)
        var uploads: [String: [String]] = [:]
        for upload in server.uploadLog() {
            uploads[upload.installID, default: []].append("\(upload.batchID) \(upload.sentAt) \(upload.locationCount)")
        }
        return (runtime.metrics.sent, uploads)
    }

    @Test(
        """
        the same seed gives the same clocks, jumps and requests (sent_at, batch ids) at warp 600, \
        at warp 3000, at max warp and over 1 to 3 loops
        """
    )
    func sameClocksSameRequests() async throws {
        let first = try await Self.run(warp: 3000)
        #expect(first.digest.count > 20, "too few requests to compare: \(first.digest.count)")
        // sent_at is each phone's clock: the clocks' offsets, drifts, syncs and jumps are in the uploads.
        let sentAt = first.uploads.values.flatMap { $0 }
        #expect(sentAt.count > 20)
        for other in [
            try await Self.run(warp: 600), try await Self.run(warp: 3000, maxWarp: true),
            try await Self.run(warp: 3000, loops: 2), try await Self.run(warp: 3000, maxWarp: true, loops: 3),
        ] {
            #expect(other.digest == first.digest)
            #expect(other.uploads == first.uploads)
        }
    }
}
