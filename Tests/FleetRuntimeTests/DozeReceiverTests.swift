import FleetDescription
import FleetTestSupport
import Foundation
import IngestReceiver
import Testing

@testable import FleetEngine
@testable import FleetRuntime

/// `doze:` on the real driver, against the reference receiver over loopback: what dozing phones
/// send reaches the server bunched in maintenance windows, and a replay sends the same.
@Suite("Doze at the receiver", .serialized)
struct DozeReceiverTests {
    /// The workspace fleets' `clock.start`, 2026-06-15T08:00:00Z.
    static let start: Int64 = 1_781_510_400_000
    /// A still phone's idle stretches under AOSP's numbers (still from minute 1), minutes after
    /// the start: (from, until) each.
    static let idle: [(Int64, Int64)] = [(31, 91), (96, 216), (221, 461), (466, 826)]

    /// 4 Android phones and 2 iPhones standing still, all with `doze: {}`, a fix admitted every
    /// 30 s (every 5 minutes while idle).
    static func yaml(warp: Int = 3000) -> String {
        let group = { (name: String, count: Int, platform: String) in
            """
              - name: \(name)
                count: \(count)
                platform: \(platform)
                route: stand.csv
                loop: false
                doze: {}
                config:
                  preset: precision
                  minTimeBetweenLocationsSeconds: 30
                  minDistanceBetweenLocationsMeters: 0
                  whenStationary: keepTracking
                  sync: {syncThreshold: 3, intervalSeconds: 60}

            """
        }
        return """
            name: doze
            seed: 9
            clock: {start: 2026-06-15T08:00:00Z, warp: \(warp)}
            groups:

            """ + group("android", 4, "android") + group("iphone", 2, "ios")
    }

    static func run(
        _ workspace: Workspace, _ server: IngestReceiver, warp: Int, hours: Int64, maxWarp: Bool = false, loops: Int = 1
    )
        async throws -> FleetRuntime
    {
        try "lat,lon\n52.5,13.4\n52.50003,13.4\n".write(
            to: workspace.folder.appendingPathComponent("stand.csv"), atomically: true, encoding: .utf8)
        return try await workspace.runtime(
            Self.yaml(warp: warp), ingest: server.url, virtualMinutes: hours * 60, timing: .deterministic,
            maxWarp: maxWarp, loops: loops)
    }

    @Test(
        """
        Android phones standing still reach the server only with batches made outside their idle \
        stretches, some in each maintenance window; iPhones send throughout; every fix acknowledged \
        is stored
        """
    )
    func bunched() async throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let server = try workspace.receiver()
        defer { server.stop() }
        let runtime = try await Self.run(workspace, server, warp: 3000, hours: 14)
        let installs = try JSONDecoder().decode(
            [String: String].self, from: Data(contentsOf: URL(fileURLWithPath: "\(workspace.data)/devices.json")))
        let log = server.uploadLog()
        let minute = { (upload: LoggedUpload) in Double(upload.sentAt - Self.start) / 60_000 }
        for index in 0..<4 {
            let install = try #require(installs[FleetLoop.deviceID(group: "android", index: index)])
            let uploads = log.filter { $0.installID == install }
            for (from, until) in Self.idle {
                let inside = uploads.filter { minute($0) > Double(from) && minute($0) < Double(until) }
                #expect(inside.isEmpty, "android-\(index): made while idle \(from)–\(until): \(inside.map(minute))")
                // What the idle stretch stored goes in the window that ends it.
                #expect(
                    uploads.contains { (Double(until)..<Double(until + 5)).contains(minute($0)) }, "none at \(until)")
            }
        }
        for index in 0..<2 {
            let install = try #require(installs[FleetLoop.deviceID(group: "iphone", index: index)])
            let (from, until) = Self.idle[2]
            #expect(log.contains { $0.installID == install && minute($0) > Double(from) && minute($0) < Double(until) })
        }
        let metrics = runtime.metrics
        #expect(metrics.dozeIdles == 4)
        // An upload out when its phone went idle still reached the server (the device heard
        // `offline`): its fixes are stored and still pending, to go again in the next window.
        let stored = server.stats().fixesStored
        let ledger = metrics.fixes.ledger
        #expect(stored >= ledger.acknowledged && stored <= ledger.acknowledged + ledger.pending)
        #expect(metrics.fixes.unaccounted == 0)
    }

    static func replay(warp: Int, maxWarp: Bool = false, loops: Int = 1) async throws -> (
        digest: RequestDigest, uploads: [String: [String]]
    ) {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let server = try workspace.receiver()
        defer { server.stop() }
        let runtime = try await Self.run(workspace, server, warp: warp, hours: 4, maxWarp: maxWarp, loops: loops)
        return (runtime.metrics.sent, server.uploadsByInstall())
    }

    @Test(
        """
        the same seed dozes at the same instants and sends the same requests, at warp 600, 3000 \
        and max, over 1 and 2 loops
        """
    )
    func replays() async throws {
        let first = try await Self.replay(warp: 3000)
        #expect(first.digest.count > 40, "too few requests to compare: \(first.digest.count)")
        for other in [
            try await Self.replay(warp: 600), try await Self.replay(warp: 3000, maxWarp: true),
            try await Self.replay(warp: 3000, loops: 2),
        ] {
            #expect(other.uploads == first.uploads)
            #expect(other.digest == first.digest)
        }
    }
}
