import BeekonDevice
import BeekonStore
import FleetTestSupport
import Foundation
import Testing

@testable import FleetDescription
@testable import FleetEngine
@testable import FleetRuntime

/// What brings a killed or rebooted app back (seed 02, spec §2, `ProcessOutage`): WorkManager and
/// the boot receiver on Android, a significant move or the user on iOS. Driven on a loop that is
/// not running (no real clock, no network: requests are sent nowhere and time out), to the
/// virtual millisecond.
@Suite("Fleet loop: kill, reboot and relaunch", .serialized)
struct RelaunchTests {
    static let start: Int64 = 1_781_510_400_000
    /// When the kill or reboot comes: 5 minutes in, 420 m along the walk.
    static let downAt = start + 5 * 60_000
    /// `Workspace`'s walk.csv: 2 km due north, walked at 1.4 m/s.
    static let walk = "walk.csv"
    /// A route of 3 m, not looped: the phone stands still after 2 s.
    static let stand = "stand.csv"

    /// A started loop over `count` phones of `platform` on `route`, uploading to a port nobody
    /// answers on; `faults` is the fleet file's timeline.
    static func loop(
        _ workspace: Workspace, platform: Platform, route: String = walk, count: Int = 1,
        faults: String = ""
    ) throws -> FleetLoop {
        try "lat,lon\n52.5,13.4\n52.50003,13.4\n".write(
            to: workspace.folder.appendingPathComponent(stand), atomically: true, encoding: .utf8)
        let fleet = try workspace.fleet(
            """
            name: relaunch
            seed: 3
            clock: {start: 2026-06-15T08:00:00Z}
            ingest: http://127.0.0.1:9/locations
            groups:
              - name: phones
                count: \(count)
                platform: \(platform.rawValue)
                route: \(route)
                pace: walk
                loop: false
                config:
                  preset: precision
                  whenStationary: keepTracking
                  sync: {syncThreshold: 1, intervalSeconds: 60}
            \(faults)
            """)
        let options = RunOptions(
            dataDirectory: workspace.data + "-\(UUID().uuidString)", routeFolder: workspace.folder.path)
        var loop = try FleetLoop(fleet: fleet, options: options)
        loop.start(wallNow: 1_781_510_400_000)
        return loop
    }

    /// Fires every timer due by `time`, each at its deadline; the requests the devices send are
    /// dropped (their answers never come, so the SDK's timeout answers them).
    static func advance(_ loop: inout FleetLoop, to time: Int64) {
        while let next = loop.nextDeadline(), next <= time {
            loop.runDue(until: time)
            _ = loop.takeEffects()
        }
        loop.metrics.virtualNow = max(loop.metrics.virtualNow, time)
    }

    /// The relaunches in a device's state history, as the admin API reads it.
    static func relaunches(_ loop: FleetLoop, _ id: String) throws -> [Relaunch] {
        var loop = loop
        loop.recordChanges()
        let device = try #require(loop.fleetSnapshot(metrics: loop.snapshot(), paused: false, realNanos: 0).device(id))
        return device.stateHistory.compactMap { change in change.cause.map { Relaunch(at: change.at, cause: $0) } }
    }

    struct Relaunch: Hashable, CustomStringConvertible {
        var at: Int64
        var cause: RelaunchCause
        var description: String { "\(cause) at +\((at - RelaunchTests.downAt) / 1000) s" }
    }

    /// Where the kill or reboot comes from.
    enum Source: String, Sendable, CaseIterable {
        /// The admin API: the delay is `relaunchAfterSeconds`.
        case admin
        /// The fleet file's timeline: the delay is the fault's `for`.
        case timeline
    }

    /// The admin API's `kill` or `reboot` with `delaySeconds` as its `relaunchAfterSeconds`.
    static func outage(_ name: FleetAction.Name, delaySeconds: Int64?) throws -> FleetAction {
        try #require(FleetAction(name, delaySeconds.map { ["relaunchAfterSeconds": .millis($0 * 1000)] } ?? [:]))
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var platform: Platform
        var action: FleetAction.Name
        var route: String
        /// The delay given (nil: none).
        var delaySeconds: Int64?
        var cause: RelaunchCause
        /// When the app is back, seconds after the kill or reboot.
        var backAfterSeconds: Int64

        var testDescription: String {
            "\(platform) \(action)\(delaySeconds.map { " (\($0) s)" } ?? "") on \(route): "
                + "\(cause) at +\(backAfterSeconds) s"
        }
    }

    /// Walking at 1.4 m/s, the phone is 500 m from where it died 357 s later; the check at 360 s
    /// sees it.
    static let cases = [
        Case(
            platform: .android, action: .kill, route: walk, delaySeconds: nil, cause: .workManager, backAfterSeconds: 60
        ),
        Case(
            platform: .android, action: .kill, route: walk, delaySeconds: 600, cause: .workManager,
            backAfterSeconds: 600),
        Case(platform: .android, action: .reboot, route: walk, delaySeconds: nil, cause: .boot, backAfterSeconds: 60),
        Case(platform: .android, action: .reboot, route: walk, delaySeconds: 300, cause: .boot, backAfterSeconds: 300),
        Case(
            platform: .ios, action: .kill, route: walk, delaySeconds: nil, cause: .significantLocationChange,
            backAfterSeconds: 360),
        Case(
            platform: .ios, action: .kill, route: walk, delaySeconds: 600, cause: .significantLocationChange,
            backAfterSeconds: 360),
        Case(platform: .ios, action: .kill, route: walk, delaySeconds: 300, cause: .userLaunch, backAfterSeconds: 300),
        // The user opens the app at the instant a check would find the move: the opening counts.
        Case(platform: .ios, action: .kill, route: walk, delaySeconds: 360, cause: .userLaunch, backAfterSeconds: 360),
        Case(
            platform: .ios, action: .kill, route: stand, delaySeconds: 7200, cause: .userLaunch,
            backAfterSeconds: 7200),
        // Booted a minute later (by default), then 500 m from where it booted.
        Case(
            platform: .ios, action: .reboot, route: walk, delaySeconds: nil, cause: .significantLocationChange,
            backAfterSeconds: 420),
        Case(
            platform: .ios, action: .reboot, route: walk, delaySeconds: 300, cause: .significantLocationChange,
            backAfterSeconds: 660),
    ]

    @Test(
        """
        a killed or rebooted app records and sends nothing while down, and comes \
        back at its platform's instant with that cause in its state history
        """,
        arguments: cases, Source.allCases)
    func comesBack(_ expected: Case, source: Source) throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let faults =
            source == .timeline
            ? "faults:\n  - {at: 5m, \(expected.delaySeconds.map { "for: \($0)s, " } ?? "")"
                + "action: \(expected.action.rawValue)}\n"
            : ""
        var loop = try Self.loop(workspace, platform: expected.platform, route: expected.route, faults: faults)
        let id = loop.slots[0].id
        Self.advance(&loop, to: Self.downAt - 1)
        #expect(loop.slots[0].listedState.description == "tracking")
        if source == .admin {
            Self.advance(&loop, to: Self.downAt)
            #expect(try loop.act(Self.outage(expected.action, delaySeconds: expected.delaySeconds), on: .all) == [id])
        } else {
            Self.advance(&loop, to: Self.downAt)
        }
        #expect(loop.slots[0].listedState.description == "dead")
        let stored = loop.metrics.fixesStored
        let sent = loop.metrics.batchesSent + loop.metrics.refreshesSent
        let back = Self.downAt + expected.backAfterSeconds * 1000

        Self.advance(&loop, to: back - 1)
        #expect(!loop.slots[0].os.processAlive && loop.slots[0].listedState.description == "dead")
        #expect(loop.metrics.fixesStored == stored, "fixes stored while the app was dead")
        #expect(loop.metrics.batchesSent + loop.metrics.refreshesSent == sent, "requests sent while the app was dead")
        #expect(try loop.locations(of: id, from: Self.downAt + 1, to: back - 1, limit: 10).isEmpty)
        #expect(try Self.relaunches(loop, id).isEmpty)

        Self.advance(&loop, to: back)
        #expect(loop.slots[0].os.processAlive)
        #expect(try Self.relaunches(loop, id) == [Relaunch(at: back, cause: expected.cause)])

        // It tracks again, in the same session, by itself.
        Self.advance(&loop, to: back + 5 * 60_000)
        #expect(loop.slots[0].listedState.description == "tracking")
        #expect(loop.metrics.fixesStored > stored)
    }

    @Test("an iOS app killed on a phone that stands still is still dead hours later, a check armed for its move")
    func standingIOSStaysDead() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        var loop = try Self.loop(workspace, platform: .ios, route: Self.stand)
        Self.advance(&loop, to: Self.downAt)
        _ = try loop.act(.kill(relaunchAfterMillis: nil), on: .all)
        let stored = loop.metrics.fixesStored
        Self.advance(&loop, to: Self.downAt + 6 * 3_600_000)
        #expect(!loop.slots[0].os.processAlive && loop.slots[0].listedState.description == "dead")
        #expect(loop.metrics.fixesStored == stored)
        #expect(try Self.relaunches(loop, loop.slots[0].id).isEmpty)
        #expect(loop.schedule.timers.isScheduled(.significantMoveCheck(0)))
        #expect(!loop.schedule.timers.isScheduled(.relaunch(0)))
    }

    struct SpawnCase: Sendable, CustomTestStringConvertible {
        var platform: Platform
        var action: FleetAction.Name
        var delaySeconds: Int64?
        /// When the device is added and spawned, seconds after the kill or reboot.
        var spawnAfterSeconds: Int64
        /// Nil: the device spawns alive (the outage is over on its platform).
        var cause: RelaunchCause?
        /// When the device is back, seconds after the kill or reboot.
        var backAfterSeconds: Int64 = 0

        var testDescription: String {
            "\(platform) \(action)\(delaySeconds.map { " (\($0) s)" } ?? ""), added at +\(spawnAfterSeconds) s: "
                + (cause.map { "\($0) at +\(backAfterSeconds) s" } ?? "alive")
        }
    }

    static let spawnCases = [
        SpawnCase(
            platform: .android, action: .kill, delaySeconds: nil, spawnAfterSeconds: 30, cause: .workManager,
            backAfterSeconds: 60),
        SpawnCase(platform: .android, action: .kill, delaySeconds: 60, spawnAfterSeconds: 120, cause: nil),
        SpawnCase(
            platform: .android, action: .reboot, delaySeconds: 300, spawnAfterSeconds: 120, cause: .boot,
            backAfterSeconds: 300),
        // From where it spawned, 500 m takes 357 s.
        SpawnCase(
            platform: .ios, action: .kill, delaySeconds: nil, spawnAfterSeconds: 120, cause: .significantLocationChange,
            backAfterSeconds: 480),
        SpawnCase(
            platform: .ios, action: .kill, delaySeconds: 300, spawnAfterSeconds: 120, cause: .userLaunch,
            backAfterSeconds: 300),
        SpawnCase(platform: .ios, action: .kill, delaySeconds: 60, spawnAfterSeconds: 120, cause: nil),
        // Spawned before the boot: measured from where it is at boot.
        SpawnCase(
            platform: .ios, action: .reboot, delaySeconds: 300, spawnAfterSeconds: 120,
            cause: .significantLocationChange, backAfterSeconds: 660),
        // Spawned after the boot: measured from where it spawned.
        SpawnCase(
            platform: .ios, action: .reboot, delaySeconds: 60, spawnAfterSeconds: 120,
            cause: .significantLocationChange, backAfterSeconds: 480),
    ]

    @Test(
        """
        a device the admin API adds while a kill or reboot of its group \
        lasts is down and comes back as the devices it reached do
        """,
        arguments: spawnCases)
    func spawnedIntoAnOutage(_ expected: SpawnCase) throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        var loop = try Self.loop(workspace, platform: expected.platform)
        Self.advance(&loop, to: Self.downAt)
        _ = try loop.act(Self.outage(expected.action, delaySeconds: expected.delaySeconds), on: .group("phones"))
        let spawnAt = Self.downAt + expected.spawnAfterSeconds * 1000
        Self.advance(&loop, to: spawnAt)
        let id = try #require(try loop.spawn(SpawnRequest(template: .group("phones"), count: 1)).first)
        loop.spawnDue(realNanos: loop.clock.realNow)
        let slot = try #require(loop.roster.slotsByID[id])
        #expect(loop.slots[slot].device != nil, "not spawned")
        guard let cause = expected.cause else {
            #expect(loop.slots[slot].listedState.description != "dead")
            return
        }
        #expect(loop.slots[slot].listedState.description == "dead")
        let back = Self.downAt + expected.backAfterSeconds * 1000
        Self.advance(&loop, to: back - 1)
        #expect(!loop.slots[slot].os.processAlive)
        #expect(try loop.locations(of: id, from: spawnAt, to: back - 1, limit: 10).isEmpty)
        Self.advance(&loop, to: back)
        #expect(loop.slots[slot].os.processAlive)
        #expect(try Self.relaunches(loop, id) == [Relaunch(at: back, cause: cause)])
    }

    @Test("a relaunch the store refuses happens, with its cause, once the store reads again")
    func storeFailureAtRelaunchResumes() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        var loop = try Self.loop(workspace, platform: .android)
        let id = loop.slots[0].id
        Self.advance(&loop, to: Self.downAt)
        _ = try loop.act(.kill(relaunchAfterMillis: nil), on: .all)
        // The store's file is not a database when WorkManager relaunches the app.
        let database = "\(loop.options.dataDirectory)/devices/\(try #require(loop.roster.installIDs[id]))/beekon.db"
        let kept = database + ".kept"
        loop.storage.stores.closeAll()
        try FileManager.default.moveItem(atPath: database, toPath: kept)
        try Data(repeating: 0x78, count: 8192).write(to: URL(fileURLWithPath: database))
        Self.advance(&loop, to: Self.downAt + 60_000)
        #expect(loop.slots[0].listedState.description == "storeError" && !loop.slots[0].os.processAlive)
        #expect(loop.slots[0].storage.problem?.resume == .relaunch(.workManager))
        #expect(try Self.relaunches(loop, id).isEmpty)

        loop.storage.stores.closeAll()
        try FileManager.default.removeItem(atPath: database)
        try FileManager.default.moveItem(atPath: kept, toPath: database)
        // The first retry, 10 s after the failure, finds it readable.
        Self.advance(&loop, to: Self.downAt + 70_000)
        #expect(loop.slots[0].os.processAlive && loop.slots[0].storage.problem == nil)
        #expect(try Self.relaunches(loop, id) == [Relaunch(at: Self.downAt + 70_000, cause: .workManager)])
    }
}
