import BeekonDevice
import FleetTestSupport
import Foundation
import Testing

@testable import FleetDescription
@testable import FleetEngine
@testable import FleetRuntime

/// The `devices` live event is made of changes the loop records where they happen
/// (`noteChange`), coalesced per publication (`recordChanges`): never of a comparison of every
/// device.
@Suite("Fleet loop: device changes", .serialized)
struct DeviceChangeTests {
    /// What the log says of each device since `number`: the latest per device id.
    static func changes(_ loop: FleetLoop, after number: UInt64) -> [String: DeviceChange.Listed] {
        var latest: [String: DeviceChange.Listed] = [:]
        for change in loop.publication.changes where change.number > number {
            latest[loop.slots[change.slot].id] = change.listed
        }
        return latest
    }

    @Test(
        """
        each device is recorded as it is first listed; a publication with nothing new records nothing; \
        many events before one publication make one change; a kill is recorded as dead
        """)
    func recordedWhereTheyHappen() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        var loop = try RelaunchTests.loop(workspace, platform: .android, count: 3)
        loop.recordChanges()
        #expect(loop.publication.changes.count == 3)
        #expect(Set(loop.publication.changes.map(\.slot)) == [0, 1, 2])
        let first = loop.publication.changesRecorded

        loop.recordChanges()
        #expect(loop.publication.changesRecorded == first, "nothing happened, nothing recorded")

        // A minute of walking: every phone admits fixes and uploads (each to a port nobody
        // answers); one publication records each phone once, as it is now.
        RelaunchTests.advance(&loop, to: RelaunchTests.start + 60_000)
        loop.recordChanges()
        let minute = Self.changes(loop, after: first)
        #expect(loop.publication.changesRecorded - first == UInt64(minute.count), "one change a device per publication")
        #expect(minute.count == 3)
        for slot in loop.slots {
            #expect(minute[slot.id]?.state == slot.listedState)
            #expect(minute[slot.id]?.pending == slot.device?.pendingUploadCount)
        }

        let before = loop.publication.changesRecorded
        _ = try loop.act(.kill(relaunchAfterMillis: 600_000), on: .ids([loop.slots[1].id]))
        loop.recordChanges()
        let killed = Self.changes(loop, after: before)
        #expect(killed.keys.sorted() == [loop.slots[1].id])
        #expect(killed[loop.slots[1].id]?.state == .dead)
    }

    /// The fields of `device` a reader tells a change by, as one comparable text.
    static func shown(_ device: DeviceSnapshot) -> String {
        "\(device.state) \(device.pending) \(String(describing: device.lastOutcome)) \(device.uploads.count) "
            + "\(device.stateHistory.count) \(String(describing: device.latitude)) \(device.permissionGranted) "
            + "\(device.deleted) \(device.sync.phase) \(String(describing: device.fixes))"
    }

    @Test(
        """
        what is published is kept device by device: each publication rewrites the noted devices, \
        every device then reads as a fresh reading would, the counts by state follow kills and deletions, \
        and a snapshot already published never changes
        """)
    func publishedDeviceByDevice() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        var loop = try RelaunchTests.loop(workspace, platform: .android, count: 3)
        func published() -> FleetSnapshot {
            let metrics = loop.snapshot()  // first: it brings the devices up to date
            return loop.fleetSnapshot(metrics: metrics, paused: false, realNanos: 0)
        }
        func expectFresh(_ snapshot: FleetSnapshot, _ comment: Comment) {
            #expect(snapshot.devices.count == loop.slots.count, comment)
            for index in loop.slots.indices {
                #expect(Self.shown(snapshot.devices[index]) == Self.shown(loop.deviceSnapshot(index)), comment)
            }
            var counts: [DeviceState: Int] = [:]
            for slot in loop.slots where !slot.removed { counts[slot.listedState, default: 0] += 1 }
            #expect(snapshot.metrics.devicesByState == counts, comment)
            #expect(snapshot.metrics.devices == counts.values.reduce(0, +), comment)
        }
        let start = published()
        expectFresh(start, "at the start")
        RelaunchTests.advance(&loop, to: RelaunchTests.start + 60_000)
        let minute = published()
        expectFresh(minute, "after a minute of walking")
        #expect(minute.devices.contains { $0.pending > 0 || !$0.uploads.isEmpty })
        #expect(start.devices.allSatisfy { $0.pending == 0 && $0.uploads.isEmpty }, "the first snapshot kept")

        _ = try loop.act(.kill(relaunchAfterMillis: 600_000), on: .ids([loop.slots[1].id]))
        _ = try loop.act(.revokePermission, on: .ids([loop.slots[0].id]))
        try loop.delete(loop.slots[2].id)
        let acted = published()
        expectFresh(acted, "after a kill, a revoked permission and a deletion")
        #expect(acted.devices[1].state == .dead)
        #expect(!acted.devices[0].permissionGranted)
        #expect(acted.devices[2].deleted && acted.device(loop.slots[2].id) == nil)
        #expect(acted.metrics.devices == 2)
        #expect(minute.devices[1].state != .dead && !minute.devices[2].deleted, "the minute's snapshot kept")
    }

    @Test(
        """
        a fix the device answers with nothing (gated out, or a phone standing still) leaves its row \
        in the device table alone, and the table still reads, field for field, as a fresh reading \
        after every second of walking and of standing
        """,
        arguments: [RelaunchTests.walk, RelaunchTests.stand])
    func gatedFixesLeaveTheTable(route: String) throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        var loop = try RelaunchTests.loop(workspace, platform: .android, route: route, count: 2)
        _ = loop.snapshot()
        var quietSeconds = 0
        for second in 1...180 {
            RelaunchTests.advance(&loop, to: RelaunchTests.start + Int64(second) * 1000)
            // Both phones get an OS fix every second (precision: 1 Hz); a second with no device
            // noted is one whose fixes were all answered with nothing.
            if loop.publication.noted.isEmpty { quietSeconds += 1 }
            let metrics = loop.snapshot()
            let table = loop.fleetSnapshot(metrics: metrics, paused: false, realNanos: 0).devices
            for index in loop.slots.indices {
                let published = String(describing: table[index])
                var fresh = loop.deviceSnapshot(index)
                fresh.auth = fresh.auth.seen(at: table.now)
                #expect(published == String(describing: fresh), "second \(second), device \(index)")
            }
        }
        // Walking at 1.4 m/s, precision's gate passes about one fix in four; standing, none after
        // the first.
        #expect(quietSeconds > (route == RelaunchTests.stand ? 150 : 20), "quiet seconds: \(quietSeconds)")
    }

    @Test("devices made since the last publication join the table in order, whichever of them was noted first")
    func newDevicesJoinInOrder() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        var loop = try RelaunchTests.loop(workspace, platform: .ios, count: 3)
        // As if only the last device had been noted: the two before it are still made and listed.
        loop.publication.dropNoted()
        loop.noteChange(2)
        let metrics = loop.snapshot()
        let snapshot = loop.fleetSnapshot(metrics: metrics, paused: false, realNanos: 0)
        #expect(snapshot.devices.map(\.id) == loop.slots.map(\.id))
        #expect(metrics.devices == 3 && metrics.devicesByState.values.reduce(0, +) == 3)
        #expect(Set(loop.publication.changes.map(\.slot)) == [0, 1, 2], "each listed once")
    }

    @Test(
        "a token published as valid reads expired once the virtual clock passes its expiry, and a breaker closes",
        arguments: [
            // valid until, breaker until, read at → state, breaker
            (2_000, 3_000, 1_000, AuthView.State.valid, Optional(Int64(3_000))),
            (2_000, 3_000, 2_000, .expired, 3_000),
            (2_000, 3_000, 3_000, .expired, nil),
        ] as [(Int64, Int64, Int64, AuthView.State, Int64?)])
    func authSeenAtPublication(
        validUntil: Int64, breakerUntil: Int64, now: Int64, state: AuthView.State, breaker: Int64?
    ) {
        let view = AuthView(
            state: .valid, validUntil: validUntil, lastRefreshOutcome: nil, breakerOpenUntil: breakerUntil)
        #expect(view.seen(at: now).state == state)
        #expect(view.seen(at: now).breakerOpenUntil == breaker)
    }

    /// A log of the changes numbered `numbers`.
    static func log(_ numbers: ClosedRange<UInt64>) -> DeviceChangeLog {
        var log = DeviceChangeLog()
        for number in numbers {
            log.append(
                DeviceChange(
                    number: number, slot: Int(number % 7),
                    listed: DeviceChange.Listed(state: .dead, pending: Int(number), lastOutcome: nil)))
        }
        return log
    }

    @Test(
        "a reader of the change log gets exactly the changes numbered after the last it saw, across chunks",
        arguments: [
            // log's numbers, after → first and last number read (nil: none)
            (1...3000, 0, Optional((UInt64(1), UInt64(3000)))),
            (1...3000, 1, (2, 3000)),
            (1...3000, 1023, (1024, 3000)),
            (1...3000, 1024, (1025, 3000)),
            (1...3000, 2999, (3000, 3000)),
            (1...3000, 3000, nil),
            (1...3000, 9000, nil),
            (501...3000, 100, (501, 3000)),  // the reader fell behind what the log holds
            (501...3000, 2048, (2049, 3000)),
        ] as [(ClosedRange<UInt64>, UInt64, (UInt64, UInt64)?)])
    func changeLogReadAfter(numbers: ClosedRange<UInt64>, after: UInt64, read: (UInt64, UInt64)?) {
        let found = Self.log(numbers).changes(after: after).map(\.number)
        if let read {
            #expect(found == Array(read.0...read.1))
        } else {
            #expect(found.isEmpty)
        }
    }

    @Test(
        """
        the change log drops whole chunks from the front, never below what it keeps, and a copy \
        taken before (a published snapshot's) keeps every change it had
        """)
    func changeLogDropsAndShares() {
        var log = Self.log(1...5000)
        let published = log
        log.dropOldest(keeping: 2000)
        #expect(log.count >= 2000 && log.count < 2000 + DeviceChangeLog.chunkSize)
        #expect(log.first?.number == UInt64(5000 - log.count + 1) && log.last?.number == 5000)
        #expect(log.map(\.number) == Array(log.first!.number...5000))
        log.append(
            DeviceChange(number: 5001, slot: 0, listed: DeviceChange.Listed(state: .dead, pending: 0, lastOutcome: nil))
        )
        #expect(published.count == 5000 && published.map(\.number) == Array(1...5000))
        #expect(log.changes(after: 4999).map(\.number) == [5000, 5001])
    }

    @Test("the log is trimmed by half at a time, and keeps the newest changes")
    func trimmed() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        var loop = try RelaunchTests.loop(workspace, platform: .ios, count: 1)
        loop.recordChanges()
        let row = loop.deviceSnapshot(0)
        // Thousands of changes of one phone, each followed by a publication.
        for number in 0..<5000 {
            loop.noteChange(0)
            loop.publication.record(
                count: 1, keep: 1024 + 4, snapshot: { _ in row },
                listing: { _ in DeviceChange.Listed(state: .dead, pending: number, lastOutcome: nil) })
        }
        #expect(loop.publication.changes.count <= 2 * (1024 + 4))
        #expect(loop.publication.changes.last?.number == loop.publication.changesRecorded)
        let numbers = loop.publication.changes.map(\.number)
        #expect(numbers == numbers.sorted() && Set(numbers).count == numbers.count, "numbered in order, none twice")
    }
}
