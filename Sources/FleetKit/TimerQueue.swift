/// Due events ordered by (deadline, sequence number): the scheduler's heart.
///
/// A binary min-heap, as SwiftNIO's embedded event loop keeps its tasks: the earliest deadline
/// pops first, and events due at the same instant pop in the order they were scheduled, so a
/// run is reproducible. Each event has a key; scheduling a key again replaces it (a device
/// re-arming a timer), and cancelling a key forgets it. Replaced and cancelled entries are
/// dropped lazily, when they reach the top.
public struct TimerQueue<Key: Hashable & Sendable, Event: Sendable>: Sendable {
    private struct Entry: Sendable {
        var deadline: Int64
        var sequence: UInt64
        var key: Key
        var event: Event

        func precedes(_ other: Entry) -> Bool {
            (deadline, sequence) < (other.deadline, other.sequence)
        }
    }

    private var heap: [Entry] = []
    /// The live sequence number of each scheduled key; an entry with another is stale.
    private var live: [Key: UInt64] = [:]
    private var nextSequence: UInt64 = 0

    /// An empty queue.
    public init() {}

    /// How many events are scheduled (stale entries not counted).
    public var count: Int { live.count }

    /// Whether nothing is scheduled.
    public var isEmpty: Bool { live.isEmpty }

    /// Schedules `event` under `key` at `deadline`, replacing what `key` had.
    public mutating func schedule(_ event: Event, key: Key, at deadline: Int64) {
        let sequence = nextSequence
        nextSequence += 1
        live[key] = sequence
        heap.append(Entry(deadline: deadline, sequence: sequence, key: key, event: event))
        siftUp(heap.count - 1)
        compactIfMostlyStale()
    }

    /// Forgets the event scheduled under `key`, if any.
    public mutating func cancel(_ key: Key) {
        live[key] = nil
        compactIfMostlyStale()
    }

    /// The deadline of the earliest scheduled event.
    public mutating func nextDeadline() -> Int64? {
        dropStaleTop()
        return heap.first?.deadline
    }

    /// Removes and returns the earliest event if it is due at or before `instant`.
    public mutating func popDue(atOrBefore instant: Int64) -> (deadline: Int64, key: Key, event: Event)? {
        dropStaleTop()
        guard let top = heap.first, top.deadline <= instant else { return nil }
        removeTop()
        live[top.key] = nil
        return (top.deadline, top.key, top.event)
    }

    /// Whether `key` has an event scheduled.
    public func isScheduled(_ key: Key) -> Bool { live[key] != nil }

    private mutating func dropStaleTop() {
        while let top = heap.first, live[top.key] != top.sequence {
            removeTop()
        }
    }

    /// Rebuilds the heap without stale entries once they outnumber the live ones, so a fleet
    /// that re-arms timers all day does not grow the heap without bound.
    private mutating func compactIfMostlyStale() {
        guard heap.count > 64, heap.count > 2 * live.count else { return }
        heap.removeAll { live[$0.key] != $0.sequence }
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) {
            siftDown(index)
        }
    }

    private mutating func removeTop() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        siftDown(0)
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var first = parent
            if left < heap.count, heap[left].precedes(heap[first]) { first = left }
            if right < heap.count, heap[right].precedes(heap[first]) { first = right }
            guard first != parent else { return }
            heap.swapAt(parent, first)
            parent = first
        }
    }
}
