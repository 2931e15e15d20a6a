import Testing

@testable import FleetEngine

/// The spawn queue alone: devices come out in the order they are due, one instant in the order
/// added, and a deleted one never.
@Suite("Spawn queue")
struct SpawnQueueTests {
    @Test("due order once sorted, the order added within an instant; only what is due; a removed slot never")
    func order() {
        var queue = SpawnQueue()
        for (slot, at) in [(0, 300), (1, 100), (2, 100), (3, 200), (4, 0)] as [(Int, UInt64)] {
            queue.add(slot, at: at)
        }
        queue.sortByDue()
        #expect(queue.nextDue == 0)
        var taken: [Int] = []
        while let slot = queue.takeDue(by: 150) { taken.append(slot) }
        #expect(taken == [4, 1, 2] && queue.nextDue == 200)
        queue.remove(0)
        queue.add(5, at: 250)
        while let slot = queue.takeDue(by: .max) { taken.append(slot) }
        #expect(taken == [4, 1, 2, 3, 5] && queue.nextDue == nil)
    }
}
