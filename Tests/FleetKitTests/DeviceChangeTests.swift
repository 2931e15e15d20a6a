import BeekonDevice
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
        for change in loop.changeLog where change.number > number { latest[loop.slots[change.slot].id] = change.listed }
        return latest
    }

    @Test(
        """
        each device is recorded as it is first listed; a publication with nothing new records nothing; \
        many events before one publication make one change; a kill is recorded as dead
        """)
    func recordedWhereTheyHappen() throws {
        let workspace = try FleetRuntimeTests.Workspace()
        defer { workspace.cleanUp() }
        var loop = try RelaunchTests.loop(workspace, platform: .android, count: 3)
        loop.recordChanges()
        #expect(loop.changeLog.count == 3)
        #expect(Set(loop.changeLog.map(\.slot)) == [0, 1, 2])
        let first = loop.changesRecorded

        loop.recordChanges()
        #expect(loop.changesRecorded == first, "nothing happened, nothing recorded")

        // A minute of walking: every phone admits fixes and uploads (each to a port nobody
        // answers); one publication records each phone once, as it is now.
        RelaunchTests.advance(&loop, to: RelaunchTests.start + 60_000)
        loop.recordChanges()
        let minute = Self.changes(loop, after: first)
        #expect(loop.changesRecorded - first == UInt64(minute.count), "one change a device per publication")
        #expect(minute.count == 3)
        for slot in loop.slots {
            #expect(minute[slot.id]?.state == slot.listedState)
            #expect(minute[slot.id]?.pending == slot.device?.pendingUploadCount)
        }

        let before = loop.changesRecorded
        _ = try loop.act(.kill(relaunchAfterMillis: 600_000), on: .ids([loop.slots[1].id]))
        loop.recordChanges()
        let killed = Self.changes(loop, after: before)
        #expect(killed.keys.sorted() == [loop.slots[1].id])
        #expect(killed[loop.slots[1].id]?.state == .dead)
    }

    @Test("the log is trimmed by half at a time, and keeps the newest changes")
    func trimmed() throws {
        let workspace = try FleetRuntimeTests.Workspace()
        defer { workspace.cleanUp() }
        var loop = try RelaunchTests.loop(workspace, platform: .ios, count: 1)
        loop.recordChanges()
        // Thousands of changes of one phone, each followed by a publication.
        for number in 0..<5000 {
            loop.changesRecorded += 1
            loop.changeLog.append(
                DeviceChange(
                    number: loop.changesRecorded, slot: 0,
                    listed: DeviceChange.Listed(state: .dead, pending: number, lastOutcome: nil)))
            loop.noteChange(0)
            loop.recordChanges()
        }
        #expect(loop.changeLog.count <= 2 * (1024 + 4))
        #expect(loop.changeLog.last?.number == loop.changesRecorded)
        let numbers = loop.changeLog.map(\.number)
        #expect(numbers == numbers.sorted() && Set(numbers).count == numbers.count, "numbered in order, none twice")
    }
}
