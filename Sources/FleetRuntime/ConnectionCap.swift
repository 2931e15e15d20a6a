import FleetEngine

/// The fleet's connection cap (`--max-connections`, a loop's share): how many requests are on
/// the wire, and those it holds back, oldest first, with the real instant each was held. They go
/// on the wire as answers free room; one whose device gave up on it never does.
struct ConnectionCap {
    /// Most requests on the wire at once; 0 for no cap.
    let limit: Int
    /// Real requests made and not yet answered.
    private(set) var inFlight = 0
    private var held: [(transfer: OutgoingTransfer, since: UInt64)] = []
    /// Entries before it were released (compacted once they are half the array).
    private var heldHead = 0
    /// Held requests whose device gave up on them, by transfer number: never sent.
    private var cancelled: Set<Int> = []

    init(limit: Int) {
        self.limit = limit
    }

    /// A request sent now would wait: the cap is full, or others wait already (first come, first
    /// on the wire).
    var mustHold: Bool { limit > 0 && (inFlight >= limit || heldHead < held.count) }

    /// `transfer` waits for room, from `realNanos`.
    mutating func hold(_ transfer: OutgoingTransfer, realNanos: UInt64) {
        held.append((transfer, realNanos))
    }

    /// Transfer `number`'s device gave up on it while it was held: it is never sent.
    mutating func cancelHeld(_ number: Int) {
        cancelled.insert(number)
    }

    /// A request went on the wire.
    mutating func sent() {
        inFlight += 1
    }

    /// `count` requests on the wire ended.
    mutating func ended(_ count: Int) {
        inFlight -= count
    }

    /// The oldest held request that may go on the wire now, taken out, with how long it waited
    /// (real ms); nil when there is no room or none waits. The caller sends it (`sent()`).
    mutating func release(realNanos: UInt64) -> (transfer: OutgoingTransfer, waitedMillis: Double)? {
        defer { compact() }
        while heldHead < held.count, limit == 0 || inFlight < limit {
            let (transfer, since) = held[heldHead]
            heldHead += 1
            guard cancelled.remove(transfer.number) == nil else { continue }
            return (transfer, Double(realNanos &- since) / 1e6)
        }
        return nil
    }

    private mutating func compact() {
        if heldHead == held.count {
            held.removeAll(keepingCapacity: true)
            heldHead = 0
        } else if heldHead > 1024, heldHead * 2 > held.count {
            held.removeFirst(heldHead)
            heldHead = 0
        }
    }
}
