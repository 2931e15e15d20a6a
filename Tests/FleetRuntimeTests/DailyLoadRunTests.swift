import BeekonDevice
import FleetDescription
import FleetTestSupport
import Foundation
import IngestReceiver
import Testing

@testable import FleetEngine
@testable import FleetRuntime

/// `daily:` and `arrivals:` on the real driver against the reference receiver: the server sees
/// the day's curve in its uploads by virtual hour and each new install as a device of its own; and
/// the same seed replays the same run.
@Suite("A day of load and new installs at the server", .serialized)
struct DailyLoadRunTests {
    /// Local midnight at +02:00 (2026-06-14T22:00:00Z), the run's start.
    static let start: Int64 = 1_781_474_400_000
    /// The day: none from 20:00 to 05:00, up through the morning, two peaks.
    static let shares: [Double] = [
        0, 0, 0, 0, 0, 0, 0.25, 0.5, 1, 1, 0.75, 0.5, 0.5, 0.75, 1, 1, 0.75, 0.5, 0.25, 0.25, 0, 0, 0, 0,
    ]

    static func yaml(group: String, count: Int, seed: Int = 9, warp: Int = 3000, more: String = "") -> String {
        """
        name: daily
        seed: \(seed)
        clock: {start: 2026-06-14T22:00:00Z, warp: \(warp)}
        groups:
          - name: walkers
            count: \(count)
            platform: {ios: 0.5, android: 0.5}
            route: walk.csv
            pace: walk
            startOffset: random
        \(group)
            config:
              preset: saver
              sync: {syncThreshold: 1, intervalSeconds: 60}
        \(more)
        """
    }

    static let daily =
        "    daily: {utcOffset: \"+02:00\", hours: [\(shares.map { "\($0)" }.joined(separator: ", "))]}"

    @Test(
        """
        over a virtual day the receiver's uploads by local hour follow the curve: none in the hours \
        the curve holds at none, more in full hours than in rising ones, every fix stored
        """)
    func curveAtServer() async throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let server = try workspace.receiver()
        defer { server.stop() }
        let runtime = try await workspace.runtime(
            Self.yaml(group: Self.daily, count: 8), ingest: server.url, virtualMinutes: 24 * 60,
            timing: .deterministic, maxWarp: true)
        var byHour = Array(repeating: 0, count: 24)
        for upload in server.uploadLog() {
            let hour = Int((upload.sentAt - Self.start) / DailyCurve.hourMillis)
            #expect((0..<24).contains(hour), "sent at \(upload.sentAt)")
            if (0..<24).contains(hour) { byHour[hour] += 1 }
        }
        // 20:00 brings the count to 0 (stopped devices upload what they hold then); 06:00 is the
        // first whole device, its ramp starting at 05:30.
        for hour in [21, 22, 23, 0, 1, 2, 3, 4] {
            #expect(byHour[hour] == 0, "local \(hour):00 has \(byHour[hour]) uploads: \(byHour)")
        }
        // Full hours (8 devices) upload more than the hours the curve rises through (2 to 4).
        for (full, rising) in [(8, 6), (9, 6), (14, 12), (15, 6)] {
            #expect(byHour[full] > byHour[rising], "local \(full):00 against \(rising):00: \(byHour)")
        }
        #expect(byHour[8] > 2 * byHour[19], "8 devices against 2: \(byHour)")
        let stats = server.stats()
        #expect(stats.devices == 8)
        #expect(stats.fixesStored == runtime.metrics.fixes.ledger.acknowledged && stats.fixesStored > 0)
        #expect(runtime.metrics.fixes.unaccounted == 0 && runtime.metrics.fixes.ledger.pending == 0)
    }

    @Test(
        """
        arrivals of 60 an hour for 2 hours give the receiver exactly the seed's count of new installs, \
        each a device with its own install id
        """)
    func arrivalsAtServer() async throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let server = try workspace.receiver()
        defer { server.stop() }
        let runtime = try await workspace.runtime(
            Self.yaml(group: "    arrivals: {perHour: 60, until: 2h}", count: 2), ingest: server.url,
            virtualMinutes: 135, timing: .deterministic, maxWarp: true)
        var process = try #require(
            ArrivalProcess(Arrivals(perHour: 60, untilMillis: 7_200_000), seed: 9, group: 0, start: Self.start))
        var expected = 0
        var at = Self.start
        while let next = process.next(after: at) {
            expected += 1
            at = next
        }
        #expect((90...150).contains(expected), "\(expected) arrivals")
        let stats = server.stats()
        #expect(stats.devices == 2 + expected)
        #expect(Set(server.uploadLog().map(\.installID)).count == 2 + expected)
        #expect(runtime.snapshot.devices.count == 2 + expected)
        #expect(stats.fixesStored == runtime.metrics.fixes.ledger.acknowledged)
    }

    /// One run of a day's morning with arrivals: its digest and the server's uploads by install.
    static func run(warp: Int, maxWarp: Bool = false, loops: Int = 1, seed: Int = 9) async throws -> (
        digest: RequestDigest, uploads: [String: [String]], devices: String
    ) {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let server = try workspace.receiver()
        defer { server.stop() }
        // From 05:00 to 08:00 local: the walkers' curve rises from none to all 6, while new
        // installs of another group arrive.
        let newcomers = """
              - name: newcomers
                count: 1
                platform: {ios: 0.5, android: 0.5}
                route: walk.csv
                pace: walk
                arrivals: {perHour: 30, until: 150m}
                config:
                  preset: saver
                  sync: {syncThreshold: 1, intervalSeconds: 60}
            """
        let yaml = Self.yaml(group: Self.daily, count: 6, seed: seed, warp: warp, more: newcomers)
            .replacingOccurrences(of: "2026-06-14T22:00:00Z", with: "2026-06-15T03:00:00Z")
        let runtime = try await workspace.runtime(
            yaml, ingest: server.url, virtualMinutes: 3 * 60, timing: .deterministic, maxWarp: maxWarp, loops: loops)
        var uploads: [String: [String]] = [:]
        for upload in server.uploadLog() {
            uploads[upload.installID, default: []].append("\(upload.batchID) \(upload.sentAt) \(upload.locationCount)")
        }
        let devices = try String(contentsOfFile: "\(workspace.data)/devices.json", encoding: .utf8)
        return (runtime.metrics.sent, uploads, devices)
    }

    @Test(
        """
        a day's curve with arrivals replays: the same seed sends the same requests and the server gets \
        the same uploads from the same installs at warp 3000 and max, and over 2 and 3 loops
        """)
    func replays() async throws {
        let first = try await Self.run(warp: 3000)
        #expect(first.digest.count > 100, "too few requests to compare: \(first.digest.count)")
        #expect(first.uploads.count > 12, "new installs uploaded: \(first.uploads.count) installs")
        for other in [
            try await Self.run(warp: 3000), try await Self.run(warp: 3000, maxWarp: true),
            try await Self.run(warp: 3000, loops: 2), try await Self.run(warp: 3000, maxWarp: true, loops: 3),
        ] {
            #expect(other.digest == first.digest)
            #expect(other.uploads == first.uploads)
            #expect(other.devices == first.devices)
        }
        let otherSeed = try await Self.run(warp: 3000, seed: 10)
        #expect(otherSeed.digest != first.digest)
    }
}
