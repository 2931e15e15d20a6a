import BeekonDevice
import FleetDescription
import FleetTestSupport
import Foundation
import Testing

@testable import FleetEngine
@testable import FleetRuntime

/// A group's `standbyBucket:` and the `standbyBucket` action on the simulated driver: after a
/// kill that gives no delay, WorkManager's restart waits its minute plus a deferral drawn from the
/// device's own stream over the bucket's limit; explicit delays, reboots and iOS are not deferred.
@Suite("App Standby buckets on virtual time")
struct StandbyBucketRunTests {
    static let start = OEMKillRunTests.start
    static let hour: Int64 = 3_600_000

    /// 3 Android walkers (or `platform`) in `bucket` (the group's own when nil), with `faults`.
    static func yaml(bucket: StandbyBucket?, platform: String = "android", extra: String = "", faults: String)
        -> String
    {
        // A fix a minute: a day's run stays cheap.
        Workspace.yaml(warp: 600, faults: faults)
            .replacingOccurrences(
                of: "minTimeBetweenLocationsSeconds: 1\n", with: "minTimeBetweenLocationsSeconds: 60\n"
            )
            .replacingOccurrences(
                of: "    platform: android\n",
                with: "    platform: \(platform)\n" + (bucket.map { "    standbyBucket: \($0.rawValue)\n" } ?? "")
                    + extra)
    }

    /// The deferrals a device of `seed` draws, in order, in `bucket`.
    static func deferrals(seed: UInt64, _ bucket: StandbyBucket, count: Int) -> [Int64] {
        var draws = SplitMix64(seed: seed).derived(FleetLoop.standbyStreamKey)
        return (0..<count).map { _ in Int64.random(in: 0...bucket.maxDeferralMillis, using: &draws) }
    }

    @Test(
        """
        after a kill with no delay, WorkManager restarts the app 60 s plus the device's own draw over \
        its bucket's limit later, and nothing is stored meanwhile
        """,
        arguments: StandbyBucket.allCases)
    func killDeferred(bucket: StandbyBucket) throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let faults = """
            faults:
              - {at: 1h, select: all, action: kill}
            """
        var fleet = try OEMKillRunTests.fleet(workspace, Self.yaml(bucket: bucket, faults: faults))
        let kill = Self.start + Self.hour
        fleet.advance(to: kill + 26 * Self.hour)
        for slot in fleet.engine.slots {
            let back = kill + ProcessOutage.defaultDelayMillis + Self.deferrals(seed: slot.seed, bucket, count: 1)[0]
            let relaunches = try RelaunchTests.relaunches(fleet.engine, slot.id)
            #expect(relaunches.map(\.at) == [back], "\(slot.id)")
            #expect(relaunches.map(\.cause) == [.workManager])
            #expect(try fleet.engine.locations(of: slot.id, from: kill + 1, to: back - 1, limit: 5).isEmpty)
            #expect(back - kill <= ProcessOutage.defaultDelayMillis + bucket.maxDeferralMillis)
        }
        if bucket != .active {
            let waits = Set(fleet.engine.slots.map { Self.deferrals(seed: $0.seed, bucket, count: 1)[0] })
            #expect(waits.count == 3, "each device draws its own deferral")
        }
    }

    @Test(
        "a rare bucket defers no restart that is not WorkManager's: a kill's own delay, a reboot, an iOS app",
        arguments: [
            ("android", "{at: 1h, for: 5m, select: all, action: kill}", 300_000, RelaunchCause.workManager),
            (
                "android", "{at: 1h, select: all, action: kill, params: {relaunchAfterSeconds: 90}}", 90_000,
                .workManager
            ),
            ("android", "{at: 1h, select: all, action: reboot}", 60_000, .boot),
            ("ios", "{at: 1h, select: all, action: kill, params: {relaunchAfterSeconds: 90}}", 90_000, .userLaunch),
        ] as [(String, String, Int64, RelaunchCause)])
    func notDeferred(platform: String, fault: String, delay: Int64, cause: RelaunchCause) throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let faults = "faults:\n  - \(fault)\n"
        var fleet = try OEMKillRunTests.fleet(
            workspace, Self.yaml(bucket: .rare, platform: platform, faults: faults))
        fleet.advance(to: Self.start + 3 * Self.hour)
        for slot in fleet.engine.slots {
            let relaunches = try RelaunchTests.relaunches(fleet.engine, slot.id)
            #expect(relaunches.map(\.at) == [Self.start + Self.hour + delay], "\(slot.id)")
            #expect(relaunches.map(\.cause) == [cause])
        }
    }

    @Test(
        """
        a battery manager's kills in the working set are each deferred by the next draw; a kill that \
        finds the app still dead is spared
        """
    )
    func oemKillsDeferred() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        var fleet = try OEMKillRunTests.fleet(
            workspace, Self.yaml(bucket: .workingSet, extra: "    oemKills: {perDay: 12}\n", faults: ""))
        // A day: fewer relaunches than the state history keeps (16).
        let end = Self.start + 24 * Self.hour
        fleet.advance(to: end)
        var total = 0
        for slot in fleet.engine.slots {
            // The kills its stream draws, those that find the app alive, and when each is back.
            var kills = SplitMix64(seed: slot.seed).derived(FleetLoop.oemKillStreamKey)
            var waits = SplitMix64(seed: slot.seed).derived(FleetLoop.standbyStreamKey)
            var expected: [Int64] = []
            var time = Self.start + Exponential.millis(mean: 7_200_000, using: &kills)
            var aliveFrom = Self.start
            while time <= end {
                if time >= aliveFrom {
                    aliveFrom = time + 60_000 + Int64.random(in: 0...7_200_000, using: &waits)
                    if aliveFrom <= end { expected.append(aliveFrom) }
                    total += 1
                }
                time += Exponential.millis(mean: 7_200_000, using: &kills)
            }
            let got = try RelaunchTests.relaunches(fleet.engine, slot.id).map(\.at)
            #expect(got == expected, "\(slot.id) \(got.map { $0 - Self.start }) \(expected.map { $0 - Self.start })")
        }
        #expect(total > 12, "\(total) kills")
        #expect(fleet.engine.metrics.oemKills == total)
    }

    @Test(
        """
        a standbyBucket action moves the app to its bucket for its `for`; then the group's own (active) \
        is back and a kill is restarted after 60 s
        """
    )
    func action() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let faults = """
            faults:
              - {at: 1h, for: 10h, select: all, action: standbyBucket, params: {bucket: frequent}}
              - {at: 2h, select: all, action: kill}
              - {at: 12h, select: all, action: kill}
            """
        var fleet = try OEMKillRunTests.fleet(workspace, Self.yaml(bucket: nil, faults: faults))
        fleet.advance(to: Self.start + 1 * Self.hour + 1)
        #expect(fleet.engine.slots.allSatisfy { $0.os.standbyBucket == .frequent })
        fleet.advance(to: Self.start + 14 * Self.hour)
        #expect(fleet.engine.slots.allSatisfy { $0.os.standbyBucket == .active })
        for slot in fleet.engine.slots {
            let deferral = Self.deferrals(seed: slot.seed, .frequent, count: 1)[0]
            let first = Self.start + 2 * Self.hour + 60_000 + deferral
            var expected = [Self.start + 12 * Self.hour + 60_000]
            if first < Self.start + 12 * Self.hour { expected.insert(first, at: 0) }
            #expect(try RelaunchTests.relaunches(fleet.engine, slot.id).map(\.at) == expected, "\(slot.id)")
        }
    }
}
