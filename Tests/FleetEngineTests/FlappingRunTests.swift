import BeekonDevice
import FleetDescription
import FleetTestSupport
import Foundation
import Testing

@testable import FleetEngine
@testable import FleetRuntime

/// A group's `flapping:` and the `flapping` action on the simulated driver, at exact virtual
/// instants: a phone sends nothing while its network is down, sends what waited the moment it is
/// back, and after a handover leaves from its other address on a new connection.
@Suite("Flapping: drops and handovers on virtual time")
struct FlappingRunTests {
    /// The workspace fleets' `clock.start`, 2026-06-15T08:00:00Z.
    static let start: Int64 = 1_781_510_400_000

    /// 3 walkers on 6 source addresses (Wi-Fi 127.0.0.2-4, cellular 127.0.0.5-7) with `flapping`
    /// (none when empty), plus a `steady` group of 2 when asked, and `faults`.
    static func yaml(flapping: String, steady: Bool = false, faults: String = "") -> String {
        var yaml = Workspace.yaml(warp: 600)
            .replacingOccurrences(of: "groups:\n", with: "network: {sourceAddresses: 127.0.0.2-127.0.0.7}\ngroups:\n")
        if !flapping.isEmpty {
            yaml = yaml.replacingOccurrences(
                of: "    pace: walk\n", with: "    pace: walk\n    flapping: \(flapping)\n")
        }
        if steady {
            yaml += """
                  - name: steady
                    count: 2
                    platform: ios
                    route: walk.csv
                    pace: walk
                    config:
                      preset: precision
                      whenStationary: keepTracking
                      sync: {syncThreshold: 3, intervalSeconds: 60}

                """
        }
        return yaml + faults
    }

    static func fleet(_ workspace: Workspace, _ yaml: String) throws -> SimulatedFleet {
        try SimulatedFleet(
            fleet: try workspace.fleet(yaml),
            options: RunOptions(
                dataDirectory: workspace.data, ingest: "http://ingest.invalid/ingest",
                routeFolder: workspace.folder.path, transferTiming: .asAnswered),
            network: { _ in .respond(status: 200, afterMillis: 50) })
    }

    /// The instants a device's flapping changes its network until `end`, as `LinkFlap` draws them
    /// from the device's seed from `begin` (its spawn, by default at `start`): each with the
    /// change and whether the phone is on cellular after it.
    static func changes(seed: UInt64, _ flapping: Flapping, from begin: Int64 = start, until end: Int64) -> [(
        at: Int64, change: LinkFlap.Change, onCellular: Bool
    )] {
        var flap = LinkFlap(deviceSeed: seed)
        var changes: [(at: Int64, change: LinkFlap.Change, onCellular: Bool)] = []
        var time = begin + flap.stretch(flapping)
        while time <= end {
            let change = flap.change(flapping)
            changes.append((time, change, flap.onCellular))
            time += flap.stretch(flapping)
        }
        return changes
    }

    @Test(
        """
        no request leaves a phone while its flapping holds the network down; the moment it is back \
        the device sends what waited, and after a handover it leaves from its other address on a new \
        connection
        """
    )
    func dropsAndHandovers() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let flapping = Flapping(meanOnlineMillis: 120_000, meanOfflineMillis: 60_000, handover: 0.5)
        var fleet = try Self.fleet(workspace, Self.yaml(flapping: "{meanOnline: 2m, meanOffline: 1m, handover: 0.5}"))
        let end = Self.start + 40 * 60_000
        fleet.advance(to: end)
        var drops = 0
        var handovers = 0
        var returnsChecked = 0
        for (index, slot) in fleet.engine.slots.enumerated() {
            let changes = Self.changes(seed: slot.seed, flapping, until: end)
            drops += changes.filter { $0.change == .drop }.count
            handovers += changes.filter { $0.change == .handover }.count
            let requests = fleet.sent.filter { $0.device == slot.id }
            #expect(requests.count > 10)
            let wifi = "127.0.0.\(2 + index)"
            let cellular = "127.0.0.\(5 + index)"
            for request in requests {
                // The network as the flapping left it at the send.
                let last = changes.last { $0.at <= request.sentAt }
                #expect(
                    last?.change != .drop, "\(slot.id) sent at \(request.sentAt - Self.start) with its network down")
                #expect(request.http.sourceAddress == (last?.onCellular == true ? cellular : wifi))
            }
            for (position, change) in changes.enumerated() where change.change != .drop {
                let next = requests.first { $0.sentAt >= change.at }
                // After a handover or a return, a new connection.
                if let next, position + 1 == changes.count || next.sentAt < changes[position + 1].at {
                    #expect(
                        next.http.freshConnection, "\(slot.id) after its \(change.change) at \(change.at - Self.start)")
                }
                // A return after a minute down sends at once (fixes waited, a second apart).
                if change.change == .restore, position > 0, change.at - changes[position - 1].at >= 10_000 {
                    #expect(next?.sentAt == change.at, "\(slot.id) back at \(change.at - Self.start)")
                    returnsChecked += 1
                }
            }
        }
        #expect(drops > 3 && handovers > 3 && returnsChecked > 3, "\(drops) drops, \(handovers) handovers")
        #expect(fleet.engine.metrics.networkDrops == drops && fleet.engine.metrics.handovers == handovers)
    }

    @Test("flapping one group leaves another group's requests as they were: no draw of its own changes")
    func otherGroupsKeepTheirRequests() throws {
        func steadyRequests(_ flapping: String) throws -> [String] {
            let workspace = try Workspace()
            defer { workspace.cleanUp() }
            var fleet = try Self.fleet(workspace, Self.yaml(flapping: flapping, steady: true))
            fleet.advance(to: Self.start + 20 * 60_000)
            return fleet.sent.filter { $0.device.hasPrefix("steady") }.map {
                "\($0.device) \($0.sentAt) \($0.http.sourceAddress ?? "-") \($0.http.body.hashValue)"
            }
        }
        let without = try steadyRequests("")
        #expect(without.count > 10)
        #expect(try steadyRequests("{meanOnline: 1m, meanOffline: 20s, handover: 0.5}") == without)
    }

    @Test(
        """
        a flapping action flaps a group that does not, for its `for`: drops within it, none after, \
        the network up at its end; a networkOffline fault holds the network down through a flap's return
        """
    )
    func action() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let faults = """
            faults:
              - at: 5m
                for: 10m
                select: all
                action: flapping
                params: {meanOnline: 1m, meanOffline: 30s, handover: 0}
              - {at: 8m, for: 4m, select: all, action: networkOffline}
            """
        var fleet = try Self.fleet(workspace, Self.yaml(flapping: "", faults: faults))
        fleet.advance(to: Self.start + 5 * 60_000 - 1)
        #expect(fleet.engine.metrics.networkDrops == 0)
        fleet.advance(to: Self.start + 15 * 60_000)
        let drops = fleet.engine.metrics.networkDrops
        #expect(drops > 3)
        #expect(fleet.engine.slots.allSatisfy { $0.online })
        fleet.advance(to: Self.start + 30 * 60_000)
        #expect(fleet.engine.metrics.networkDrops == drops)
        // Nothing left while the fault held the network down, whatever the flapping did.
        let during = fleet.sent.filter { (Self.start + 8 * 60_000..<Self.start + 12 * 60_000).contains($0.sentAt) }
        #expect(during.isEmpty, "\(during.map(\.sentAt))")
        // At the fault's end, a phone its flapping has up is back and sends what waited at once.
        let flapping = Flapping(meanOnlineMillis: 60_000, meanOfflineMillis: 30_000, handover: 0)
        var back = 0
        for slot in fleet.engine.slots {
            let changes = Self.changes(
                seed: slot.seed, flapping, from: Self.start + 5 * 60_000, until: Self.start + 12 * 60_000)
            guard changes.last?.change != .drop else { continue }
            back += 1
            #expect(fleet.sent.contains { $0.device == slot.id && $0.sentAt == Self.start + 12 * 60_000 })
        }
        #expect(back > 0)
        #expect(fleet.sent.filter { $0.sentAt > Self.start + 15 * 60_000 }.count > 10)
    }
}
