import BeekonDevice
import Testing

@testable import FleetEngine

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

    /// Keys `lane * 100 + n` belong to lane `lane`; keys below 0 are barriers.
    static func disposition(waiting: Set<Int>) -> (Int, Int64) -> TimerQueue<Int, String>.Disposition {
        { key, _ in
            if key < 0 { return .barrier }
            return waiting.contains(key / 100) ? .park(lane: key / 100) : .fire
        }
    }

    @Test(
        "a waiting lane's events are parked while other lanes go on, and come back in their places when it is released")
    func parkAndRelease() {
        var queue = TimerQueue<Int, String>()
        queue.schedule("a1", key: 100, at: 10)
        queue.schedule("b1", key: 200, at: 20)
        queue.schedule("a2", key: 101, at: 30)
        queue.schedule("b2", key: 201, at: 40)
        var popped: [String] = []
        while let due = queue.popDue(atOrBefore: 100, disposition: Self.disposition(waiting: [1])) {
            popped.append(due.event)
        }
        #expect(popped == ["b1", "b2"])
        #expect(queue.parkedLanes == 1 && queue.count == 2)
        #expect(queue.nextDeadline() == 10, "parked events are still scheduled")
        queue.release(lane: 1)
        while let due = queue.popDue(atOrBefore: 100, disposition: Self.disposition(waiting: [])) {
            popped.append(due.event)
        }
        #expect(popped == ["b1", "b2", "a1", "a2"])
        #expect(queue.isEmpty && queue.parkedLanes == 0)
    }

    @Test("a barrier waits until nothing parked comes before it, and nothing after it pops meanwhile")
    func barrierWaitsForParked() {
        var queue = TimerQueue<Int, String>()
        queue.schedule("a1", key: 100, at: 10)
        queue.schedule("fault", key: -1, at: 20)
        queue.schedule("b1", key: 200, at: 15)
        queue.schedule("b2", key: 201, at: 25)
        queue.schedule("a2", key: 101, at: 30)
        var popped: [String] = []
        while let due = queue.popDue(atOrBefore: 100, disposition: Self.disposition(waiting: [1])) {
            popped.append(due.event)
        }
        #expect(popped == ["b1"], "b2 passed the barrier, or the barrier passed a1")
        queue.release(lane: 1)
        while let due = queue.popDue(atOrBefore: 100, disposition: Self.disposition(waiting: [])) {
            popped.append(due.event)
        }
        #expect(popped == ["b1", "a1", "fault", "b2", "a2"])
    }

    @Test("a parked event cancelled or replaced meanwhile does not come back, and does not hold a barrier")
    func parkedCancelAndReplace() {
        var queue = TimerQueue<Int, String>()
        queue.schedule("a1", key: 100, at: 10)
        queue.schedule("a2", key: 101, at: 12)
        queue.schedule("fault", key: -1, at: 20)
        #expect(queue.popDue(atOrBefore: 100, disposition: Self.disposition(waiting: [1])) == nil)
        queue.cancel(100)
        queue.schedule("a2 later", key: 101, at: 50)
        #expect(queue.popDue(atOrBefore: 100, disposition: Self.disposition(waiting: [1]))?.event == "fault")
        queue.release(lane: 1)
        #expect(queue.popDue(atOrBefore: 100, disposition: Self.disposition(waiting: []))?.event == "a2 later")
        #expect(queue.isEmpty)
    }
}
