/// Devices made (by the admin API or a stage) that wait for their real-time turn to spawn, in
/// the order they are due.
struct SpawnQueue {
    private var waiting: [(slot: Int, realNanos: UInt64)] = []
    /// Entries before it were taken (compacted once they are half the array).
    private var head = 0

    /// `slot` spawns once the driver's real clock reaches `realNanos`.
    mutating func add(_ slot: Int, at realNanos: UInt64) {
        waiting.append((slot, realNanos))
    }

    /// Due order, not the order added: a spawn without a rate does not wait behind the rest of
    /// an earlier paced one (stable, so one instant keeps the order added).
    mutating func sortByDue() {
        compact()
        waiting.sort { $0.realNanos < $1.realNanos }
    }

    /// When the first waiting device is due, real ns.
    var nextDue: UInt64? { head < waiting.count ? waiting[head].realNanos : nil }

    /// The first waiting device, taken out, if it is due by `realNanos`.
    mutating func takeDue(by realNanos: UInt64) -> Int? {
        guard head < waiting.count, waiting[head].realNanos <= realNanos else { return nil }
        head += 1
        let slot = waiting[head - 1].slot
        if head * 2 >= waiting.count { compact() }
        return slot
    }

    /// `slot` no longer spawns (deleted).
    mutating func remove(_ slot: Int) {
        compact()
        waiting.removeAll { $0.slot == slot }
    }

    private mutating func compact() {
        guard head > 0 else { return }
        waiting.removeFirst(head)
        head = 0
    }
}
