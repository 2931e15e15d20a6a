import BeekonDevice
import BeekonStore
import Testing

@testable import FleetEngine

/// The commit queue alone: each device's rows with their instants and oldest timestamp, the
/// devices in the order their first row came, and the fleet's count.
@Suite("Commit queue")
struct CommitQueueTests {
    static func fix(at timestamp: Int64) -> StoreRow {
        .fix(
            Location(
                id: UUIDv7(high: UInt64(timestamp), low: 1), latitude: 52.5, longitude: 13.4, timestamp: timestamp,
                accuracy: 5, speed: nil, bearing: nil, altitude: nil, trigger: .interval, motion: .moving)!,
            sessionID: "s")
    }

    @Test("rows wait per device in order, counted across the fleet; taking a device's empties it, once")
    func queue() {
        var queue = CommitQueue()
        queue.add(Self.fix(at: 300), slot: 2, at: 10)
        queue.add(Self.fix(at: 100), slot: 0, at: 11)
        queue.add(Self.fix(at: 200), slot: 2, at: 12)
        #expect(queue.rowsWaiting == 3 && queue.count(2) == 2 && queue.oldest(2) == 200 && queue.count(5) == 0)
        let taken = queue.take(2)
        #expect(taken?.instants == [10, 12] && taken?.rows.map(\.timestamp) == [300, 200])
        #expect(queue.take(2) == nil && queue.oldest(2) == .max && queue.rowsWaiting == 1)
        queue.add(Self.fix(at: 400), slot: 2, at: 13)
        #expect(queue.takeSlots() == [2, 0, 2], "listed again after its rows were taken early")
        #expect(queue.isEmpty && queue.rowsWaiting == 2)
    }
}
