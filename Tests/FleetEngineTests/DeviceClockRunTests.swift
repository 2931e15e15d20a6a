import BeekonDevice
import FleetTestSupport
import Foundation
import Testing

@testable import FleetDescription
@testable import FleetEngine
@testable import FleetRuntime

/// Phones' clocks (`deviceClock`, `clockJump`, `clockOffset`) on the simulated driver, at exact
/// virtual instants: what the SDK stamps moves with the clock, its timers and the engine's
/// figures do not.
@Suite("Device clocks in a run")
struct DeviceClockRunTests {
    static let start = Workspace.start
    static let minute = Workspace.minute

    /// One walker of `platform` admitting a fix a second, uploading every minute (never on a
    /// threshold), with `clock` as its `deviceClock` and `faults`.
    static func yaml(platform: String, clock: String = "", faults: String = "") -> String {
        """
        name: clocks
        seed: 11
        clock: {start: 2026-06-15T08:00:00Z, warp: 60}
        groups:
          - name: walkers
            count: 1
            platform: \(platform)
            route: walk.csv
            pace: walk
            provider: {gapsPerHour: 0, outlierProbability: 0}
            \(clock.isEmpty ? "" : "deviceClock: \(clock)")
            config:
              preset: precision
              minTimeBetweenLocationsSeconds: 1
              minDistanceBetweenLocationsMeters: 0
              whenStationary: keepTracking
              sync: {syncThreshold: 1000, intervalSeconds: 60}
        \(faults.isEmpty ? "" : "faults:\n" + faults)
        """
    }

    /// Fixes device 0 has admitted so far.
    static func admitted(_ fleet: SimulatedFleet) -> Int {
        fleet.engine.slots[0].storage.ledger?.admitted ?? 0
    }

    /// A walker of `platform` whose clock jumps 10 minutes back at 2 min, run to just past the
    /// jump, with the fixes it had admitted by then.
    static func jumpedBack(
        platform: String, in workspace: Workspace
    ) throws -> (fleet: SimulatedFleet, ingest: SimulatedIngest, admitted: Int) {
        let ingest = SimulatedIngest()
        let faults = "  - {at: 2m, action: clockJump, params: {seconds: -600}}"
        var fleet = try workspace.simulated(Self.yaml(platform: platform, faults: faults), ingest: ingest)
        fleet.advance(to: Self.start + 2 * Self.minute + 500)
        return (fleet, ingest, Self.admitted(fleet))
    }

    @Test(
        """
        an iOS clock set 10 minutes back stamps fixes older than the last admitted one, which the \
        SDK rejects (spec §4 step 4): no fix is admitted until the clock passes it, 10 virtual minutes on
        """
    )
    func iOSBackwardJumpStopsAdmission() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        var (fleet, ingest, before) = try Self.jumpedBack(platform: "ios", in: workspace)
        #expect(before > 100)
        fleet.advance(to: Self.start + 11 * Self.minute + 55_000)
        #expect(Self.admitted(fleet) == before, "a fix stamped before the last admitted one was admitted")
        fleet.advance(to: Self.start + 12 * Self.minute + 5_000)
        #expect(Self.admitted(fleet) > before, "admission did not resume once the clock passed the last fix")
        // What the store holds never goes back: the fixes after the gap are stamped past the last before it.
        let stamps = try fleet.storedFixes().map(\.timestamp) + ingest.uploads.flatMap(\.timestamps)
        #expect(stamps.sorted() == Set(stamps).sorted(), "a fix was stored twice or out of order")
        // The uploads' `sent_at` is the clock's: 10 minutes behind their true send instant from the jump on.
        for upload in ingest.uploads(of: fleet.engine.slots[0].id) {
            let behind = upload.request.sentAt >= Self.start + 2 * Self.minute ? Int64(600_000) : 0
            #expect(upload.sentAt == upload.request.sentAt - behind, "sent_at \(upload.sentAt)")
        }
    }

    @Test(
        """
        an Android GNSS fix carries the satellites' time: the same jump leaves admission going, \
        while sent_at follows the phone's clock
        """
    )
    func androidGNSSKeepsSatelliteTime() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        var (fleet, ingest, before) = try Self.jumpedBack(platform: "android", in: workspace)
        fleet.advance(to: Self.start + 5 * Self.minute)
        // A fix a second, give or take the one at each boundary.
        #expect(abs(Self.admitted(fleet) - before - 180) <= 2, "admitted \(Self.admitted(fleet) - before)")
        let uploads = ingest.uploads(of: fleet.engine.slots[0].id)
        let late = try #require(uploads.last { $0.request.sentAt > Self.start + 3 * Self.minute })
        #expect(late.sentAt == late.request.sentAt - 600_000)
        #expect(late.timestamps.allSatisfy { $0 > Self.start + 2 * Self.minute && $0 <= late.request.sentAt })
    }

    @Test(
        "the SDK's timers are elapsed time: the minute's uploads keep their true cadence across a jump",
        arguments: [3_600, -3_600])
    func timersDoNotJump(seconds: Int) throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let ingest = SimulatedIngest()
        let faults = "  - {at: 150s, action: clockJump, params: {seconds: \(seconds)}}"
        var fleet = try workspace.simulated(Self.yaml(platform: "android", faults: faults), ingest: ingest)
        fleet.advance(to: Self.start + 8 * Self.minute)
        // A minute's 60 fixes leave as two batches at one instant (the drain sends the next at once).
        let sends = Set(ingest.uploads(of: fleet.engine.slots[0].id).map(\.request.sentAt)).sorted()
        #expect(sends.count == 8, "\(sends.map { $0 - Self.start })")
        #expect(zip(sends, sends.dropFirst()).allSatisfy { $1 - $0 == Self.minute }, "\(sends.map { $0 - Self.start })")
        let sentAt = ingest.uploads(of: fleet.engine.slots[0].id).map(\.sentAt)
        #expect(sentAt.last == sends.last.map { $0 + Int64(seconds) * 1000 })
    }

    @Test("a fleet file's deviceClock: every device its own offset, in range, and the engine's figures on true time")
    func groupOffsets() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let ingest = SimulatedIngest()
        let yaml = Self.yaml(platform: "ios", clock: "{offset: 5m, spread: 30s}")
            .replacingOccurrences(of: "count: 1", with: "count: 6")
        var fleet = try workspace.simulated(yaml, ingest: ingest)
        fleet.advance(to: Self.start + 5 * Self.minute)
        var offsets: Set<Int64> = []
        for slot in fleet.engine.slots {
            let uploads = ingest.uploads(of: slot.id)
            try #require(!uploads.isEmpty)
            let offset = uploads[0].sentAt - uploads[0].request.sentAt
            #expect((270_000...330_000).contains(offset), "\(slot.id): \(offset)")
            #expect(uploads.allSatisfy { $0.sentAt - $0.request.sentAt == offset }, "\(slot.id): no drift asked")
            offsets.insert(offset)
        }
        #expect(offsets.count == 6, "two devices share an offset: \(offsets)")
        // Acknowledged fixes are at most a minute and a bit old on true time, not five minutes younger.
        let age = fleet.engine.metrics.fixes.ageAtAcknowledgement
        #expect(age.count > 0)
        #expect(age.percentile(0) >= 0 && age.percentile(1) <= 62_000, "\(age.percentile(0))…\(age.percentile(1))")
    }

    @Test("NTP sets a drifting clock right at each sync: sent_at jumps back to the true instant")
    func ntpCorrects() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let ingest = SimulatedIngest()
        let yaml = Self.yaml(platform: "ios", clock: "{offset: 2m, driftPpm: 500, ntp: {every: 1m}}")
        var fleet = try workspace.simulated(yaml, ingest: ingest)
        fleet.advance(to: Self.start + 4 * Self.minute)
        let clock = try #require(fleet.engine.slots[0].os.clock)
        let first = try #require(clock.firstSync)
        #expect(first >= Self.start && first < Self.start + Self.minute)
        // Every upload is after the first sync: off true time by the drift since the last sync only.
        for upload in ingest.uploads(of: fleet.engine.slots[0].id) {
            let since = upload.request.sentAt - (clock.lastSync(atOrBefore: upload.request.sentAt) ?? Self.start)
            #expect(abs(upload.sentAt - upload.request.sentAt) <= since / 2_000 + 1, "\(upload.sentAt)")
        }
    }

    /// `LookaheadTests`' fleet with phone clocks: drawn per device, synced every 4 minutes, a
    /// jump back on a fraction and a set offset on a group.
    static let clockedFleet =
        LookaheadTests.yaml
        .replacingOccurrences(
            of: "    spread: 1m\n",
            with: "    spread: 1m\n    deviceClock: {offset: 1m, spread: 2m, driftPpm: 200, ntp: {every: 4m}}\n"
        )
        .replacingOccurrences(
            of: "    start: 7m\n", with: "    start: 7m\n    deviceClock: {offset: -3m, driftPpm: 50}\n")
            + """

              - {at: 5m, select: {fraction: 0.5}, action: clockJump, params: {seconds: -300}}
              - {at: 10m, for: 4m, select: {group: late}, action: clockOffset, params: {seconds: 90}}
            """

    @Test("a device's clock is the same on every shard: the shards together send what the whole fleet sends")
    func shardsShareClocks() throws {
        #expect(Self.clockedFleet.contains("deviceClock: {offset: -3m"))
        try ShardTests.expectSameFleet(Self.clockedFleet, shards: 2, minutes: 20)
        let whole = try ShardTests.run(Self.clockedFleet, shard: .whole, until: 20)
        defer { whole.workspace.cleanUp() }
        var clocks: [String: DeviceClock] = [:]
        for shard in try Shard.all(3) {
            let part = try ShardTests.run(Self.clockedFleet, shard: shard, until: 20)
            part.workspace.cleanUp()
            for slot in part.fleet.engine.slots { clocks[slot.id] = slot.os.clock }
        }
        #expect(clocks.count == whole.fleet.engine.slots.count)
        for slot in whole.fleet.engine.slots { #expect(clocks[slot.id] == slot.os.clock, "\(slot.id)") }
        // Each device's own: offsets and sync instants differ between devices.
        let walkers = whole.fleet.engine.slots.filter { $0.group == 0 }.compactMap(\.os.clock)
        #expect(Set(walkers.map(\.firstSync)).count == walkers.count)
    }

    @Test("a fleet without deviceClock sends exactly what it sent before: no draw moved, no instant either")
    func noClockNoChange() throws {
        let plain = try ShardTests.run(LookaheadTests.yaml, shard: .whole, until: 20)
        defer { plain.workspace.cleanUp() }
        #expect(plain.fleet.engine.slots.allSatisfy { $0.os.clock == nil })
        // A clock at exactly true time reads as none: same requests, byte for byte.
        let exact = LookaheadTests.yaml.replacingOccurrences(
            of: "    spread: 1m\n", with: "    spread: 1m\n    deviceClock: {offset: 0s}\n")
        let zero = try ShardTests.run(exact, shard: .whole, until: 20)
        defer { zero.workspace.cleanUp() }
        #expect(zero.fleet.engine.slots.contains { $0.os.clock != nil })
        #expect(zero.fleet.engine.metrics.sent.text == plain.fleet.engine.metrics.sent.text)
    }

    @Test(
        """
        a resumed run starts after what the earlier run stamped on true time: an hour-fast clock's \
        newest row does not push the start an hour on, and the clock is drawn again from the seed
        """
    )
    func resumeStaysOnTrueTime() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let yaml = Self.yaml(platform: "ios", clock: "{offset: 1h, spread: 10s}")
            .replacingOccurrences(of: "sync: {syncThreshold: 1000, intervalSeconds: 60}", with: "sync: false")
        var first = try workspace.simulated(yaml, ingest: SimulatedIngest(), dataDirectory: workspace.data)
        first.advance(to: Self.start + 10 * Self.minute)
        let clock = try #require(first.engine.slots[0].os.clock)
        let stamped = try #require(try first.engine.slots[0].storage.store.newestTimestamp())
        #expect(stamped > Self.start + 69 * Self.minute, "the rows are stamped on the hour-fast clock")
        first.finish()
        let earlier = try #require(try DataFolder.earlierRun(workspace.data))
        let fleet = try workspace.fleet(yaml)
        let expected = DataFolder.resumeStart(of: earlier, fleet: fleet, seed: fleet.seed, wallNow: Self.start)
        var second = try workspace.simulated(yaml, ingest: SimulatedIngest(), dataDirectory: workspace.data)
        let resumed = second.engine.clock.runStart
        #expect(resumed == expected, "the --clock-start message and the run agree")
        #expect(resumed.reason == .stopped && resumed.millis == Self.start + 10 * Self.minute + 1, "\(resumed)")
        // Drawn again from the seed, from the resumed start: the same offset, the rows still in order.
        #expect(second.engine.slots[0].os.clock?.offset(at: resumed.millis) == clock.offset(at: clock.anchor))
        second.advance(to: resumed.millis + Self.minute)
        let stamps = try second.storedFixes().map(\.timestamp)
        #expect(stamps.filter { $0 > stamped }.count > 30, "the resumed device admits fixes again")
    }

    @Test(
        """
        the token's expiry is read on the phone's clock: a proactive refresh due at expiresAt − 60 s \
        goes 10 minutes later on a clock 10 minutes behind, 10 minutes sooner on one ahead
        """,
        arguments: [(-600, Int64(39)), (0, 29), (600, 19)])
    func tokenExpiryOnThePhonesClock(offsetSeconds: Int, refreshMinute: Int64) throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let ingest = SimulatedIngest()
        let expiresAt = (Self.start + 30 * Self.minute) / 1000
        let yaml = Self.yaml(platform: "ios", clock: "{offset: \(offsetSeconds)}")
            .replacingOccurrences(
                of: "sync: {syncThreshold: 1000, intervalSeconds: 60}",
                with: """
                    sync: {syncThreshold: 1000, intervalSeconds: 3600, auth: {accessToken: a, refreshToken: r, \
                    expiresAt: \(expiresAt), refreshUrl: "http://token.invalid/token"}}
                    """)
        var fleet = try workspace.simulated(yaml, ingest: ingest)
        fleet.advance(to: Self.start + 10 * Self.minute)
        // The admin shows the expiry on the fleet's clock: when the device will find the token expired.
        let validUntil = fleet.engine.deviceSnapshot(0).auth.validUntil
        #expect(validUntil == Self.start + 30 * Self.minute - Int64(offsetSeconds) * 1000)
        fleet.advance(to: Self.start + 45 * Self.minute)
        let refreshes = fleet.sent.filter { if case .refresh = $0.kind { true } else { false } }
        #expect(
            refreshes.first?.sentAt == Self.start + refreshMinute * Self.minute, "\(refreshes.map(\.sentAt))")
    }
}
