import BeekonDevice
import FleetDescription
import FleetTestSupport
import Foundation
import Testing

@testable import FleetEngine
@testable import FleetRuntime

/// A group's `doze:` and the `doze` action on the simulated driver: an Android phone standing
/// still goes idle and sends nothing until a maintenance window, where what waited goes at once;
/// walking phones and iPhones never doze.
@Suite("Doze on virtual time")
struct DozeRunTests {
    /// The workspace fleets' `clock.start`, 2026-06-15T08:00:00Z.
    static let start: Int64 = 1_781_510_400_000

    /// An Android phone and an iPhone standing still, and an Android phone walking, each group
    /// with `doze` (none when empty), a fix admitted every 20 s; then `faults`.
    static func yaml(doze: String, faults: String = "") -> String {
        let dozeLine = doze.isEmpty ? "" : "    doze: \(doze)\n"
        let config = """
                config:
                  preset: precision
                  minTimeBetweenLocationsSeconds: 20
                  minDistanceBetweenLocationsMeters: 0
                  whenStationary: keepTracking
                  sync: {syncThreshold: 3, intervalSeconds: 60}

            """
        return """
            name: doze
            seed: 4
            clock: {start: 2026-06-15T08:00:00Z, warp: 600}
            groups:
              - name: standing
                count: 1
                platform: android
                route: stand.csv
                loop: false

            """ + dozeLine + config + """
                  - name: iphone
                    count: 1
                    platform: ios
                    route: stand.csv
                    loop: false

                """ + dozeLine + config + """
                      - name: walking
                        count: 1
                        platform: android
                        route: walk.csv

                    """ + dozeLine + config + faults
    }

    static func fleet(_ workspace: Workspace, _ yaml: String) throws -> SimulatedFleet {
        try "lat,lon\n52.5,13.4\n52.50003,13.4\n".write(
            to: workspace.folder.appendingPathComponent("stand.csv"), atomically: true, encoding: .utf8)
        return try SimulatedFleet(
            fleet: try workspace.fleet(yaml),
            options: RunOptions(
                dataDirectory: workspace.data, ingest: "http://ingest.invalid/ingest",
                routeFolder: workspace.folder.path, transferTiming: .asAnswered),
            network: { _ in .respond(status: 200, afterMillis: 50) })
    }

    /// A still phone's idle stretches under AOSP's numbers, from `still` (the first minute it is
    /// seen still), minutes after the start: (from, until) each.
    static let idle: [(Int64, Int64)] = [(31, 91), (96, 216), (221, 461), (466, 826)]

    @Test(
        """
        an Android phone standing still sends nothing while idle and sends what waited the moment \
        each maintenance window opens; an iPhone and a walking phone send throughout
        """
    )
    func windows() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        var fleet = try Self.fleet(workspace, Self.yaml(doze: "{}"))
        fleet.advance(to: Self.start + 830 * 60_000)
        let minute = { (request: SimulatedRequest) in Double(request.sentAt - Self.start) / 60_000 }
        let standing = fleet.sent.filter { $0.device.hasPrefix("standing") }
        for (from, until) in Self.idle {
            let during = standing.filter { minute($0) > Double(from) && minute($0) < Double(until) }
            #expect(during.isEmpty, "sent while idle \(from)–\(until): \(during.map(minute))")
            // The window opens: what waited goes at once.
            #expect(standing.contains { $0.sentAt == Self.start + until * 60_000 }, "nothing at \(until)")
        }
        #expect(fleet.engine.metrics.dozeIdles == 1)
        for other in ["iphone", "walking"] {
            let sent = fleet.sent.filter { $0.device.hasPrefix(other) }
            let (from, until) = Self.idle[1]
            #expect(sent.contains { minute($0) > Double(from) && minute($0) < Double(until) }, "\(other)")
        }
    }

    @Test("a doze action dozes a group that does not for its `for`; at its end the app's network is back at once")
    func action() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let faults = """
            faults:
              - {at: 0s, for: 2h, select: all, action: doze, params: {after: 10m}}
            """
        var fleet = try Self.fleet(workspace, Self.yaml(doze: "", faults: faults))
        fleet.advance(to: Self.start + 3 * 3_600_000)
        let standing = fleet.sent.filter { $0.device.hasPrefix("standing") }.map { ($0.sentAt - Self.start) / 60_000 }
        // Still from minute 1, idle from 11 until the window at 71, idle again from 76 until the
        // fault ends at 120, when what waited goes.
        #expect(!standing.contains { (12..<71).contains($0) || (77..<120).contains($0) }, "\(standing)")
        #expect(standing.contains(120))
        #expect(fleet.engine.metrics.dozeIdles == 1)
        #expect(fleet.engine.slots.allSatisfy { $0.online })
    }
}
