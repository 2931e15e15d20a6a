import BeekonNet
import Testing

@Suite("FIFO queue")
struct FIFOQueueTests {
    @Test("elements come out in the order they went in, across compactions")
    func order() {
        var queue = FIFOQueue<Int>()
        var out: [Int] = []
        for round in 0..<5 {
            queue.append(contentsOf: Array(round * 1_000..<(round + 1) * 1_000))
            for _ in 0..<700 { out.append(queue.popFirst()!) }
        }
        out += queue.removeAll()
        #expect(out == Array(0..<5_000))
        #expect(queue.isEmpty && queue.count == 0 && queue.popFirst() == nil)
    }

    @Test("one element can be taken from the middle; the rest keep their order")
    func removeFromMiddle() {
        var queue = FIFOQueue<Int>()
        queue.append(contentsOf: [1, 2, 3, 4])
        _ = queue.popFirst()
        #expect(queue.remove(firstWhere: { $0 == 3 }) == 3)
        #expect(queue.remove(firstWhere: { $0 == 1 }) == nil, "taken already")
        #expect(queue.first == 2 && queue.count == 2)
        #expect(queue.removeAll() == [2, 4])
    }
}
