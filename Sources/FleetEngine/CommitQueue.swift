import BeekonStore

/// Rows the devices stored in this turn that wait to share one commit per device (see
/// `FleetLoop.keep(_:slot:at:)`): each device's rows, the instant each was stored at and the
/// oldest row timestamp among them, the devices with rows waiting in the order the first of
/// each came, and the count across the fleet (what a driver weighs a turn's budget by).
struct CommitQueue {
    /// One device's waiting rows.
    private struct Waiting {
        var rows: [StoreRow] = []
        var instants: [Int64] = []
        var oldest = Int64.max
    }

    /// How many rows wait, across the fleet.
    private(set) var rowsWaiting = 0
    /// Devices with rows waiting, in the order the first of each came (listed again after their
    /// rows were taken early).
    private var slots: [Int] = []
    private var bySlot: [Waiting] = []

    /// How many rows device `slot` has waiting.
    func count(_ slot: Int) -> Int { slot < bySlot.count ? bySlot[slot].rows.count : 0 }

    /// The oldest row timestamp device `slot` has waiting (`.max` for none).
    func oldest(_ slot: Int) -> Int64 { slot < bySlot.count ? bySlot[slot].oldest : .max }

    /// Device `slot`'s `row`, stored at `time`, waits for its commit.
    mutating func add(_ row: StoreRow, slot: Int, at time: Int64) {
        while bySlot.count <= slot { bySlot.append(Waiting()) }
        if bySlot[slot].rows.isEmpty { slots.append(slot) }
        rowsWaiting += 1
        bySlot[slot].rows.append(row)
        bySlot[slot].instants.append(time)
        bySlot[slot].oldest = min(bySlot[slot].oldest, row.timestamp)
    }

    /// Device `slot`'s waiting rows and their instants, taken out (its room kept: it stores again
    /// next turn); nil when it has none.
    mutating func take(_ slot: Int) -> (rows: [StoreRow], instants: [Int64])? {
        guard slot < bySlot.count, !bySlot[slot].rows.isEmpty else { return nil }
        let taken = (bySlot[slot].rows, bySlot[slot].instants)
        bySlot[slot].rows.removeAll(keepingCapacity: true)
        bySlot[slot].instants.removeAll(keepingCapacity: true)
        bySlot[slot].oldest = .max
        rowsWaiting -= taken.0.count
        return taken
    }

    /// The devices listed with rows waiting since the last call, in order (some may have had
    /// theirs taken since).
    mutating func takeSlots() -> [Int] {
        defer { slots = [] }
        return slots
    }

    /// Whether any device is listed with rows waiting.
    var isEmpty: Bool { slots.isEmpty }
}
