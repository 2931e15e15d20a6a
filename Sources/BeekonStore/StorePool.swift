import BeekonDevice

/// Bounds how many device stores have their file open at once.
///
/// A fleet holds one store per device, ten thousand or more, but an open store holds two file
/// descriptors (database and `-wal`) and the process has a limit shared with its sockets.
/// Stores made with a pool open on first use; when `maxOpen` are open, opening one more first
/// closes another. Closing loses nothing (every write is committed, the store keeps its counts)
/// and reopening gives the same rows.
///
/// The store closed is picked at random, not the least recently used: a fleet visits its
/// devices in turn (each ticks once a cadence), and with such a cyclic pattern least-recently-
/// used always closes the store needed next, so a pool a little smaller than the fleet would
/// miss on every use. Random eviction misses in proportion to the shortfall. Which store is
/// closed changes no row and no output, only when files are open, so the draws use a fixed
/// seed of their own. Each use and each eviction costs O(1).
///
/// Confined to the scheduler's thread, like its stores.
public final class StorePool {
    /// What `init` uses when not told: 2048 stores are 6,144 descriptors, under a third of the
    /// 20 000 this kind of machine allows, which leaves room for sockets.
    public static let defaultMaxOpen = 2048

    /// The most stores open at once.
    public let maxOpen: Int
    /// Stores open now.
    public var openCount: Int { open.count }
    /// Stores closed to make room for another, since the pool was made.
    public private(set) var evictionCount = 0

    // The open stores, in no order; each store knows its index here. unowned(unsafe): a store
    // removes itself before it closes or is freed, so no entry outlives its store.
    private var open: [Unowned] = []
    private var draws = SplitMix64(seed: 0x5EED_0F_5704E)

    private struct Unowned {
        unowned(unsafe) let store: DeviceStore  // unsafe: removed in close/deinit
    }

    /// A pool that keeps at most `maxOpen` (at least 1) stores open.
    public init(maxOpen: Int = StorePool.defaultMaxOpen) {
        self.maxOpen = max(1, maxOpen)
    }

    /// Releases the memory of every open store (see `DeviceStore.releaseMemory()`); for the
    /// scheduler to call when devices go quiet.
    public func releaseMemory() {
        for entry in open {
            entry.store.releaseMemory()
        }
    }

    /// Closes every open store; each reopens on its next use.
    public func closeAll() {
        while let last = open.last {
            last.store.close()
        }
    }

    // MARK: Called by stores

    /// Closes stores picked at random until one more can open.
    func makeRoom() {
        while open.count >= maxOpen, !open.isEmpty {
            let victim = open[Int(draws.next() % UInt64(open.count))].store
            victim.close(checkpointing: false)
            evictionCount += 1
        }
    }

    func storeDidOpen(_ store: DeviceStore) {
        store.indexInPool = open.count
        open.append(Unowned(store: store))
    }

    func storeDidClose(_ store: DeviceStore) {
        let index = store.indexInPool
        let last = open.removeLast()
        if index < open.count {
            open[index] = last
            last.store.indexInPool = index
        }
        store.indexInPool = -1
    }
}
