import BeekonDevice
import BeekonStore
import FleetDescription
import FleetTestSupport
import Foundation
import Testing

@testable import FleetEngine
@testable import FleetRuntime

/// Reinstalls and app upgrades on the simulated driver, at exact virtual instants: a reinstall
/// gives a device a new install id and an empty store and counts the old one's pending fixes
/// `uninstalled`; an upgrade relaunches the app with a new `sdk_version` and keeps its rows.
@Suite("Churn: reinstalls and upgrades on virtual time")
struct ChurnRunTests {
    /// The workspace fleets' `clock.start`, 2026-06-15T08:00:00Z.
    static let start: Int64 = 1_781_510_400_000

    /// The `device` object of an upload.
    static func device(_ request: SimulatedRequest) throws -> [String: Any] {
        let body = try #require(try JSONSerialization.jsonObject(with: Data(request.http.body)) as? [String: Any])
        return try #require(body["device"] as? [String: Any])
    }

    static func uploads(_ fleet: SimulatedFleet) -> [SimulatedRequest] {
        fleet.sent.filter { if case .upload = $0.kind { true } else { false } }
    }

    /// The fix ids pending in the store of install `installID`, as its file holds them.
    static func pending(_ workspace: Workspace, _ installID: String) throws -> Set<String> {
        Set(try StoreRecords.read(path: "\(workspace.data)/devices/\(installID)/beekon.db").pending.map(\.text))
    }

    @Test(
        """
        a reinstall gives each device a new install id and an empty store: the old store's pending \
        fixes are counted uninstalled and never sent, the account balances, and the new install \
        waits for its user to open it
        """
    )
    func reinstall() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let reinstallAt = Self.start + 3 * 60_000
        let openAt = reinstallAt + 60_000
        let faults = """
            faults:
              - {at: 3m, select: all, action: reinstall, params: {openAfterSeconds: 60}}
            """
        // The server refuses until the reinstall: every fix the first installs made stays pending.
        var fleet = try SimulatedFleetTests.fleet(workspace, faults: faults) { request in
            request.sentAt < reinstallAt
                ? .respond(status: 503, afterMillis: 50) : .respond(status: 200, afterMillis: 50)
        }
        let first = fleet.engine.roster.installIDs
        #expect(first.count == 3)
        fleet.advance(to: reinstallAt)
        let atReinstall = fleet.engine.snapshot()
        let second = fleet.engine.roster.installIDs
        var wiped: Set<String> = []
        for (id, old) in first {
            let new = try #require(second[id])
            #expect(new != old && UUIDv7(new) != nil)
            // Seed 05: a UUIDv7 of the install's own instant.
            #expect(UUIDv7(new).map { Int64($0.high >> 16) } == reinstallAt)
            #expect(fleet.engine.roster.formerInstalls[id] == [old])
            wiped.formUnion(try Self.pending(workspace, old))
        }
        #expect(wiped.count > 30)
        FixAccountingTests.expectBalanced(atReinstall)
        #expect(atReinstall.fixes.ledger.uninstalled == wiped.count)
        #expect(atReinstall.fixes.ledger.pending == 0)
        #expect(atReinstall.fixesByGroup[0].ledger.uninstalled == wiped.count)
        // Dead, on an empty store, until the user opens the new install.
        for slot in fleet.engine.slots {
            #expect(slot.listedState == .dead)
            #expect(try slot.storage.store.pendingCount() == 0)
        }
        // The data folder names the new installs, and keeps the old ones apart.
        let devices = try JSONDecoder().decode(
            [String: String].self, from: Data(contentsOf: URL(fileURLWithPath: "\(workspace.data)/devices.json")))
        let installs = try JSONDecoder().decode(
            [String: [String]].self, from: Data(contentsOf: URL(fileURLWithPath: "\(workspace.data)/installs.json")))
        #expect(devices == second)
        #expect(installs == first.mapValues { [$0] })

        fleet.advance(to: openAt + 5 * 60_000)
        let metrics = fleet.engine.snapshot()
        FixAccountingTests.expectBalanced(metrics)
        #expect(metrics.fixes.ledger.uninstalled == wiped.count)
        #expect(metrics.fixes.ledger.acknowledged > 0)
        let uploads = Self.uploads(fleet)
        let before = uploads.filter { $0.sentAt < reinstallAt }
        let after = uploads.filter { $0.sentAt >= reinstallAt }
        #expect(!before.isEmpty && !after.isEmpty)
        // Nothing goes between the reinstall and the opening; then only the new install sends.
        #expect(after.allSatisfy { $0.sentAt >= openAt })
        for upload in before {
            #expect(try Self.device(upload)["install_id"] as? String == first[upload.device])
        }
        for upload in after {
            #expect(try Self.device(upload)["install_id"] as? String == second[upload.device])
            #expect(Set(try SimulatedFleetTests.locationIDs(upload)).isDisjoint(with: wiped))
        }
        // The new install starts as a spawned device does, from the opening.
        for slot in fleet.engine.slots {
            let opened = slot.recent.stateHistory.elements.first { $0.at >= openAt }
            #expect(opened?.at == openAt && opened?.state != .dead)
        }
    }

    @Test(
        """
        an upgrade relaunches the app with the new sdk_version: its pending rows stay, and the batch \
        it was retrying goes again with the same batch_id
        """
    )
    func upgrade() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let upgradeAt = Self.start + 2 * 60_000
        let faults = """
            faults:
              - {at: 2m, select: all, action: upgrade, params: {sdkVersion: "0.2.0"}}
            """
        var fleet = try SimulatedFleetTests.fleet(workspace, faults: faults) { request in
            request.sentAt < upgradeAt ? .respond(status: 503, afterMillis: 50) : .respond(status: 200, afterMillis: 50)
        }
        let installs = fleet.engine.roster.installIDs
        fleet.advance(to: upgradeAt + 10 * 60_000)
        let metrics = fleet.engine.snapshot()
        FixAccountingTests.expectBalanced(metrics)
        #expect(metrics.fixes.ledger.uninstalled == 0)
        #expect(fleet.engine.roster.installIDs == installs)
        for (device, uploads) in Dictionary(grouping: Self.uploads(fleet), by: \.device) {
            let before = uploads.filter { $0.sentAt < upgradeAt }
            let after = uploads.filter { $0.sentAt >= upgradeAt }
            let retried = try #require(before.last)
            let resent = try #require(after.first)
            #expect(try Self.device(retried)["sdk_version"] as? String == "0.1.1")
            #expect(SimulatedFleetTests.batchID(resent) == SimulatedFleetTests.batchID(retried), "\(device)")
            #expect(try SimulatedFleetTests.locationIDs(resent) == SimulatedFleetTests.locationIDs(retried))
            for upload in after {
                #expect(try Self.device(upload)["sdk_version"] as? String == "0.2.0")
                #expect(try Self.device(upload)["install_id"] as? String == installs[device])
            }
        }
        for slot in fleet.engine.slots {
            #expect(slot.identity.sdkVersion == "0.2.0")
            let relaunch = slot.recent.stateHistory.elements.first { $0.cause == .appUpdate }
            #expect(relaunch?.at == upgradeAt)
        }
    }

    @Test(
        """
        a reinstall of every device in one step records the roster's files once, in the step's \
        first effects, with every device's new and former install
        """
    )
    func reinstallsRecordOnce() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        var fleet = try SimulatedFleetTests.fleet(workspace) { _ in .respond(status: 200) }
        fleet.advance(to: Self.start + 60_000)
        _ = fleet.engine.takeEffects()
        let before = fleet.engine.roster.installIDs
        for slot in fleet.engine.slots.indices {
            fleet.engine.apply(.reinstall(openAfterMillis: nil), forMillis: nil, to: slot, at: fleet.now)
        }
        let effects = fleet.engine.takeEffects()
        var installs: [[String: String]] = []
        var former: [[String: [String]]] = []
        for effect in effects {
            if case .recordInstallIDs(let map) = effect { installs.append(map) }
            if case .recordFormerInstalls(let map) = effect { former.append(map) }
        }
        #expect(installs.count == 1 && former.count == 1)
        if case .recordInstallIDs = effects.first {} else { Issue.record("the step's first effect: \(effects)") }
        #expect(installs.first == fleet.engine.roster.installIDs)
        #expect(installs.first?.keys.sorted() == before.keys.sorted())
        #expect(former.first == before.mapValues { [$0] })
        // Nothing changed since: nothing recorded again.
        let after = fleet.engine.takeEffects()
        #expect(!after.contains { if case .recordInstallIDs = $0 { true } else { false } })
    }

    @Test(
        """
        a resumed run finds each device's current install, its former ones and an upgraded app's \
        version, and reinstalls again with install ids of its own
        """
    )
    func resume() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let faults = """
            faults:
              - {at: 1m, select: all, action: reinstall}
              - {at: 2m, select: all, action: upgrade, params: {sdkVersion: "0.2.0"}}
            """
        var first = try SimulatedFleetTests.fleet(workspace, faults: faults) { _ in .respond(status: 200) }
        first.advance(to: Self.start + 3 * 60_000)
        first.finish()
        let installs = first.engine.roster.installIDs
        let former = first.engine.roster.formerInstalls
        #expect(former.values.allSatisfy { $0.count == 1 })

        // The same fleet without the timeline: nothing upgrades it again.
        var second = try SimulatedFleetTests.fleet(workspace) { _ in .respond(status: 200) }
        let resumedAt = second.now
        #expect(second.engine.roster.installIDs == installs && second.engine.roster.formerInstalls == former)
        second.advance(byMillis: 3 * 60_000)
        let uploads = Self.uploads(second)
        #expect(!uploads.isEmpty)
        for upload in uploads {
            #expect(try Self.device(upload)["sdk_version"] as? String == "0.2.0")
            #expect(try Self.device(upload)["install_id"] as? String == installs[upload.device])
        }
        #expect(second.engine.slots.allSatisfy { $0.identity.sdkVersion == "0.2.0" })
        // A reinstall in the resumed run is the device's second: ids of its own, kept in order.
        try second.command { loop in
            for slot in loop.slots.indices {
                loop.apply(.reinstall(openAfterMillis: nil), forMillis: nil, to: slot, at: loop.metrics.virtualNow)
            }
        }
        for (id, ids) in second.engine.roster.formerInstalls {
            #expect(ids == former[id]! + [installs[id]!])
            #expect(!ids.contains(second.engine.roster.installIDs[id]!))
        }
        #expect(resumedAt > Self.start + 3 * 60_000)
    }

    @Test(
        "a reinstall's new install opens at its time, or once a rebooting phone is up, whichever is later",
        arguments: [
            // (the reboot's length, openAfterSeconds, when the new install opens after the reinstall)
            // (a 2-minute reboot at 1m is up at 3m, a minute after the reinstall)
            (nil, 30, 30_000), (120, 30, 60_000), (120, 90, 90_000), (nil, 0, 0),
        ] as [(Int?, Int, Int64)])
    func openAfterReboot(rebootSeconds: Int?, openAfter: Int, opensAfter: Int64) throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        // A reboot at 1m (when given), the reinstall at 2m.
        let reboot = rebootSeconds.map { "  - {at: 1m, for: \($0)s, select: all, action: reboot}\n" } ?? ""
        let faults =
            "faults:\n" + reboot
            + "  - {at: 2m, select: all, action: reinstall, params: {openAfterSeconds: \(openAfter)}}\n"
        var fleet = try SimulatedFleetTests.fleet(workspace, faults: faults) { _ in .respond(status: 200) }
        let reinstallAt = Self.start + 2 * 60_000
        fleet.advance(to: reinstallAt + 5 * 60_000)
        for slot in fleet.engine.slots {
            let opened = slot.recent.stateHistory.elements.first { $0.at >= reinstallAt && $0.state != .dead }
            #expect(opened?.at == reinstallAt + opensAfter, "\(slot.recent.stateHistory.elements)")
        }
    }

    static func churnFleet(_ churn: String) -> String {
        """
        name: churn
        seed: 11
        clock: {start: 2026-06-15T08:00:00Z, warp: 600, timing: modelled}
        groups:
          - name: walkers
            count: 6
            platform: {ios: 0.5, android: 0.5}
            route: walk.csv
            pace: walk
            loop: true
            config:
              preset: balanced
              whenStationary: keepTracking
              sync: {syncThreshold: 5, intervalSeconds: 60}
            churn: \(churn)
        """
    }

    /// A run of `hours` of the churn fleet: its install ids, the former ones, the upgrade
    /// instants and the request digest.
    static func churnRun(_ churn: String, hours: Int64) throws -> (
        installs: [String: String], former: [String: [String]], upgrades: [String: Int64], digest: String
    ) {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        var fleet = try SimulatedFleet(
            fleet: try workspace.fleet(Self.churnFleet(churn)),
            options: RunOptions(
                dataDirectory: workspace.data, ingest: "http://ingest.invalid/ingest",
                routeFolder: workspace.folder.path),
            network: { _ in .respond(status: 200, afterMillis: 100) })
        fleet.advance(to: Self.start + hours * 3_600_000)
        var upgrades: [String: Int64] = [:]
        for slot in fleet.engine.slots {
            upgrades[slot.id] = slot.recent.stateHistory.elements.first { $0.cause == .appUpdate }?.at
        }
        let metrics = fleet.engine.snapshot()
        FixAccountingTests.expectBalanced(metrics)
        return (fleet.engine.roster.installIDs, fleet.engine.roster.formerInstalls, upgrades, metrics.sent.text)
    }

    @Test(
        """
        a group's churn reinstalls each device on its own seeded Poisson clock and upgrades it \
        within its window: the same seed makes the same instants, install ids and requests
        """
    )
    func churnReplays() throws {
        let churn = #"{reinstallsPerDay: 24, upgrade: {sdkVersion: "0.2.0", at: 1h, over: 1h}}"#
        let one = try Self.churnRun(churn, hours: 4)
        let two = try Self.churnRun(churn, hours: 4)
        #expect(one.installs == two.installs)
        #expect(one.former == two.former)
        #expect(one.upgrades == two.upgrades)
        #expect(one.digest == two.digest)
        // About one reinstall an hour per device: 4 h make some, each at its own instant.
        let reinstalls = one.former.values.map(\.count).reduce(0, +)
        #expect(reinstalls >= 6 && reinstalls <= 60, "\(reinstalls) reinstalls")
        let instants = Set(one.former.values.flatMap { $0.dropFirst() }.compactMap { UUIDv7($0)?.high })
        #expect(instants.count == one.former.values.map { $0.count - 1 }.reduce(0, +))
        // Every device upgraded within [1 h, 2 h) of the start, at instants spread over it.
        #expect(one.upgrades.count == 6)
        for at in one.upgrades.values {
            #expect(at >= Self.start + 3_600_000 && at < Self.start + 7_200_000)
        }
        #expect(Set(one.upgrades.values).count == 6)
    }

    @Test("a churn that reinstalls and upgrades nothing sends what a group without churn sends")
    func noChurnKeepsDigest() throws {
        let none = try Self.churnRun(#"{}"#, hours: 1)
        let zero = try Self.churnRun(#"{reinstallsPerDay: 0}"#, hours: 1)
        #expect(none.digest == zero.digest && none.installs == zero.installs && zero.former.isEmpty)
    }
}
