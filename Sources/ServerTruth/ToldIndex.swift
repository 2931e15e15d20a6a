import BeekonDevice
import BeekonStore

/// Every fix id the run's devices sent or hold, sorted, each with its device and the last word
/// its store has on it: 24 bytes a fix, so ten million fit in a quarter of a GiB, and a server
/// row finds its fix by binary search.
struct ToldIndex {
    struct Entry {
        var high: UInt64
        var low: UInt64
        var device: UInt32
        var side: DeviceSide

        func precedes(_ high: UInt64, _ low: UInt64) -> Bool {
            self.high < high || (self.high == high && self.low < low)
        }
    }

    private(set) var entries: [Entry] = []

    /// Adds what device number `device`'s store holds.
    mutating func add(_ records: StoreRecords, device: UInt32) {
        for id in records.pending {
            entries.append(Entry(high: id.high, low: id.low, device: device, side: .pending))
        }
        for batch in records.told {
            let side: DeviceSide =
                switch batch.heard {
                case .acknowledged: .acknowledged
                case .rejected: .rejected
                case .unheardAcknowledgement, .unacknowledged: .sentThenGone
                }
            for id in batch.fixIDs {
                entries.append(Entry(high: id.high, low: id.low, device: device, side: side))
            }
        }
    }

    /// Sorts by id and keeps one entry per id, with the strongest word on it (an acknowledged
    /// fix was also pending once, and perhaps sent unacknowledged before).
    mutating func seal() {
        entries.sort { $0.precedes($1.high, $1.low) || ($0.high == $1.high && $0.low == $1.low && $0.side > $1.side) }
        var kept = 0
        for index in entries.indices {
            if kept > 0, entries[kept - 1].high == entries[index].high, entries[kept - 1].low == entries[index].low {
                continue
            }
            entries[kept] = entries[index]
            kept += 1
        }
        entries.removeLast(entries.count - kept)
    }

    /// The entry of `id`, or nil when no device of the run sent or holds it.
    func find(_ id: UUIDv7) -> Int? {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].precedes(id.high, id.low) { low = middle + 1 } else { high = middle }
        }
        guard low < entries.count, entries[low].high == id.high, entries[low].low == id.low else { return nil }
        return low
    }
}
