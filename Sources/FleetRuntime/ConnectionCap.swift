import BeekonNet
import FleetEngine

/// The fleet's connection cap (`--max-connections`, a loop's share): how many requests are on
/// the wire, and those it holds back, oldest first, with the real instant each was held. They go
/// on the wire as answers free room; one whose device gave up on it never does.
struct ConnectionCap {
    /// Most requests on the wire at once; 0 for no cap.
    let limit: Int
    /// Real requests made and not yet answered.
    private(set) var inFlight = 0
    private var held = FIFOQueue<(transfer: OutgoingTransfer, since: UInt64)>()
    /// Held requests whose device gave up on them, by transfer number: never sent.
    private var cancelled: Set<Int> = []

    init(limit: Int) {
        self.limit = limit
    }

    /// A request sent now would wait: the cap is full, or others wait already (first come, first
    /// on the wire).
    var mustHold: Bool { limit > 0 && (inFlight >= limit || !held.isEmpty) }

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
        while limit == 0 || inFlight < limit, let (transfer, since) = held.popFirst() {
            guard cancelled.remove(transfer.number) == nil else { continue }
            return (transfer, Double(realNanos &- since) / 1e6)
        }
        return nil
    }
}
