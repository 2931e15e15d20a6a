import BeekonDevice
import BeekonStore

/// Every fix id the run's devices sent or hold, sorted, each with its device and the last word
/// its store has on it: 24 bytes a fix, so ten million fit in a quarter of a GiB, and a server
/// row finds its fix by binary search within its bucket (see `buckets`).
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
    /// Where each bucket of ids starts in `entries`, one more at the end: bucket `b` holds the
    /// entries whose `(high - base) >> shift` is `b`, about four of them. A plain binary search
    /// over ten million entries took about 1 µs a row, most of it cache misses in its last
    /// dozen steps (half of `verify`'s CPU in `beekon-bench verify`); the bucket narrows it to a
    /// few neighbours first. Built by `seal`; every id of a bucket has the same bucket, so a
    /// search within it finds what a search over all would.
    private var buckets: [UInt32] = []
    private var base: UInt64 = 0
    private var shift: UInt64 = 0

    /// Adds what device number `device`'s store holds; `uninstalled`: the store of an install a
    /// reinstall replaced, whose pending fixes were wiped with it.
    mutating func add(_ records: StoreRecords, device: UInt32, uninstalled: Bool = false) {
        for id in records.pending {
            entries.append(
                Entry(high: id.high, low: id.low, device: device, side: uninstalled ? .uninstalled : .pending))
        }
        for batch in records.told {
            let side: DeviceSide =
                switch batch.heard {
                case .acknowledged: .acknowledged
                case .rejected: .rejected
                case .unheardAcknowledgement, .unacknowledged: .sentThenGone
                case .portalAcknowledged: .portalAcknowledged
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
        makeBuckets()
    }

    /// About four entries a bucket, a power of two of them (at most 2^24, 64 MiB); the shift the
    /// smallest that puts the largest id in the last bucket.
    private mutating func makeBuckets() {
        buckets = []
        guard let first = entries.first, let last = entries.last, entries.count < Int(UInt32.max) else { return }
        var count: UInt64 = 1
        while count < UInt64(entries.count / 4), count < 1 << 24 { count <<= 1 }
        base = first.high
        let span = last.high - base
        shift = 0
        while shift < 64, span >> shift >= count { shift += 1 }
        buckets.reserveCapacity(Int(count) + 1)
        var index = 0
        for bucket in 0..<count {
            while index < entries.count, (entries[index].high - base) >> shift < bucket { index += 1 }
            buckets.append(UInt32(index))
        }
        buckets.append(UInt32(entries.count))
    }

    /// The entry of `id`, or nil when no device of the run sent or holds it.
    func find(_ id: UUIDv7) -> Int? {
        var low = 0
        var high = entries.count
        if !buckets.isEmpty {
            guard id.high >= base else { return nil }
            let bucket = (id.high - base) >> shift
            guard bucket < UInt64(buckets.count - 1) else { return nil }
            low = Int(buckets[Int(bucket)])
            high = Int(buckets[Int(bucket) + 1])
        }
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].precedes(id.high, id.low) { low = middle + 1 } else { high = middle }
        }
        guard low < entries.count, entries[low].high == id.high, entries[low].low == id.low else { return nil }
        return low
    }
}
