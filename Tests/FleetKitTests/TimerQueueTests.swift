import BeekonDevice
import Testing

@testable import FleetKit

@Suite("Timer queue")
struct TimerQueueTests {
    @Test("events pop by deadline, and in scheduling order at the same deadline")
    func order() {
        var queue = TimerQueue<Int, String>()
        queue.schedule("c", key: 3, at: 30)
        queue.schedule("a", key: 1, at: 10)
        queue.schedule("b1", key: 2, at: 20)
        queue.schedule("b2", key: 4, at: 20)
        var popped: [String] = []
        while let due = queue.popDue(atOrBefore: 100) { popped.append(due.event) }
        #expect(popped == ["a", "b1", "b2", "c"])
        #expect(queue.isEmpty)
    }

    @Test("nothing pops before its deadline")
    func notEarly() {
        var queue = TimerQueue<Int, Int>()
        queue.schedule(1, key: 1, at: 50)
        #expect(queue.popDue(atOrBefore: 49) == nil)
        #expect(queue.nextDeadline() == 50)
        #expect(queue.popDue(atOrBefore: 50)?.event == 1)
    }

    @Test("scheduling a key again replaces it; cancelling forgets it")
    func replaceAndCancel() {
        var queue = TimerQueue<String, Int>()
        queue.schedule(1, key: "retry", at: 10)
        queue.schedule(2, key: "retry", at: 30)
        queue.schedule(3, key: "interval", at: 20)
        queue.cancel("interval")
        #expect(queue.count == 1)
        #expect(queue.nextDeadline() == 30)
        #expect(queue.popDue(atOrBefore: 100)?.event == 2)
        #expect(queue.popDue(atOrBefore: 100) == nil)
    }

    @Test("100,000 re-arms of 500 keys keep only the last of each, in order", arguments: [1, 2, 3] as [UInt64])
    func manyReArms(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var queue = TimerQueue<Int, Int64>()
        var expected: [Int: Int64] = [:]
        for _ in 0..<100_000 {
            let key = Int(rng.next() % 500)
            let deadline = Int64(rng.next() % 1_000_000)
            queue.schedule(deadline, key: key, at: deadline)
            expected[key] = deadline
        }
        var popped: [Int64] = []
        while let due = queue.popDue(atOrBefore: .max) {
            #expect(expected[due.key] == due.deadline)
            popped.append(due.deadline)
        }
        #expect(popped == expected.values.sorted())
    }
}
