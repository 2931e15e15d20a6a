/// Due events ordered by (deadline, sequence number): the scheduler's heart.
///
/// A binary min-heap, as SwiftNIO's embedded event loop keeps its tasks: the earliest deadline
/// pops first, and events due at the same instant pop in the order they were scheduled, so a
/// run is reproducible. Each event has a key; scheduling a key again replaces it (a device
/// re-arming a timer), and cancelling a key forgets it. Replaced and cancelled entries are
/// dropped lazily, when they reach the top.
///
/// Events may belong to lanes (a device's own events), and `popDue(atOrBefore:disposition:)`
/// may set a due event aside, parked under its lane, while the rest go on: a lane waiting for
/// something (a device for a real answer) falls behind without holding the others, and
/// `release(lane:)` puts its events back with their places in the order. An event of no lane
/// (a barrier: a fault that touches many devices) fires only once nothing parked comes before
/// it, so it finds every lane exactly where a queue without parking would have.
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

    /// What `popDue(atOrBefore:disposition:)` is to do with a due event.
    public enum Disposition: Sendable {
        /// It may fire now.
        case fire
        /// Its lane waits: set it aside until `release(lane:)`.
        case park(lane: Int)
        /// It concerns every lane: it fires once no parked event comes before it, and nothing
        /// after it is returned until then.
        case barrier
    }

    private var heap: [Entry] = []
    /// Events set aside by lane; they stay scheduled (cancel and schedule still apply to them).
    private var parked: [Int: [Entry]] = [:]
    /// The earliest parked event when last looked for (nil with none parked), kept as events are
    /// parked; a release, or its cancellation, has it looked for again.
    private var parkedFirst: (entry: Entry?, known: Bool) = (nil, true)
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

    /// The deadline of the earliest scheduled event, parked ones included.
    public mutating func nextDeadline() -> Int64? {
        dropStaleTop()
        let parkedFirst = earliestParked()?.deadline
        guard let top = heap.first?.deadline else { return parkedFirst }
        return min(top, parkedFirst ?? top)
    }

    /// Lanes with events parked.
    public var parkedLanes: Int { parked.count }

    /// Removes and returns the earliest event if it is due at or before `instant`.
    public mutating func popDue(atOrBefore instant: Int64) -> (deadline: Int64, key: Key, event: Event)? {
        popDue(atOrBefore: instant) { _, _ in .fire }
    }

    /// Removes and returns the earliest event due at or before `instant` that may fire now, as
    /// `disposition` says of each: events of a lane that must wait are parked on the way; a
    /// barrier with a parked event before it stops the pop (nil), as nothing after it may fire.
    public mutating func popDue(
        atOrBefore instant: Int64, disposition: (Key, Int64) -> Disposition
    ) -> (deadline: Int64, key: Key, event: Event)? {
        while true {
            dropStaleTop()
            guard let top = heap.first, top.deadline <= instant else { return nil }
            switch disposition(top.key, top.deadline) {
            case .fire:
                break
            case .park(let lane):
                removeTop()
                parked[lane, default: []].append(top)
                if parkedFirst.known, parkedFirst.entry.map({ top.precedes($0) }) ?? true { parkedFirst.entry = top }
                continue
            case .barrier:
                if let first = earliestParked(), first.precedes(top) { return nil }
            }
            removeTop()
            live[top.key] = nil
            return (top.deadline, top.key, top.event)
        }
    }

    /// Puts the events parked under `lane` back in the order, in their places (those cancelled or
    /// replaced meanwhile are dropped).
    public mutating func release(lane: Int) {
        guard let entries = parked.removeValue(forKey: lane) else { return }
        parkedFirst = (nil, parked.isEmpty)
        for entry in entries where live[entry.key] == entry.sequence {
            heap.append(entry)
            siftUp(heap.count - 1)
        }
    }

    /// Puts every parked event back.
    public mutating func releaseAll() {
        for lane in Array(parked.keys) { release(lane: lane) }
    }

    /// The earliest parked event still scheduled.
    private mutating func earliestParked() -> Entry? {
        if parkedFirst.known, parkedFirst.entry.map({ live[$0.key] == $0.sequence }) ?? true {
            return parkedFirst.entry
        }
        parkedFirst = (scanParked(), true)
        return parkedFirst.entry
    }

    /// The earliest parked event still scheduled, looked for in every lane (each holds a few).
    private func scanParked() -> Entry? {
        var earliest: Entry?
        for entries in parked.values {
            for entry in entries where live[entry.key] == entry.sequence {
                if earliest.map({ entry.precedes($0) }) ?? true { earliest = entry }
            }
        }
        return earliest
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
