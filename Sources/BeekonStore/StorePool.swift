/// Bounds how many device stores have their file open at once.
///
/// A fleet holds one store per device, ten thousand or more, but a WAL store holds three file
/// descriptors (database, `-wal`, `-shm`) and the process has a limit shared with its sockets.
/// Stores made with a pool open on first use; when `maxOpen` are open, opening one more first
/// closes the least recently used. Closing loses nothing (every write is committed, the store
/// keeps its counts) and reopening gives the same rows. Each use costs O(1): the pool's
/// least-recently-used list runs through the stores themselves.
///
/// Confined to the scheduler's thread, like its stores.
public final class StorePool {
    /// What `init` uses when not told: 2048 stores are 6144 descriptors, a third of the
    /// 20 000 this kind of machine allows, which leaves room for sockets.
    public static let defaultMaxOpen = 2048

    /// The most stores open at once.
    public let maxOpen: Int
    /// Stores open now.
    public private(set) var openCount = 0
    /// Stores closed to make room for another, since the pool was made.
    public private(set) var evictionCount = 0

    // The ends of the least-recently-used list; the stores own the links, not the pool.
    private unowned(unsafe) var mostRecent: DeviceStore?  // unsafe: unlinked in close/deinit
    private unowned(unsafe) var leastRecent: DeviceStore?  // unsafe: unlinked in close/deinit

    /// A pool that keeps at most `maxOpen` (at least 1) stores open.
    public init(maxOpen: Int = StorePool.defaultMaxOpen) {
        self.maxOpen = max(1, maxOpen)
    }

    /// Releases the memory of every open store except the `exceptMostRecent` most recently used
    /// (see `DeviceStore.releaseMemory()`); for the scheduler to call when devices go quiet.
    public func releaseMemory(exceptMostRecent: Int = 0) {
        var skipped = 0
        var store = mostRecent
        while let current = store {
            if skipped < exceptMostRecent {
                skipped += 1
            } else {
                current.releaseMemory()
            }
            store = current.olderInPool
        }
    }

    /// Closes every open store; each reopens on its next use.
    public func closeAll() {
        while let store = leastRecent {
            store.close()
        }
    }

    // MARK: Called by stores

    /// Closes least recently used stores until one more can open.
    func makeRoom() {
        while openCount >= maxOpen, let victim = leastRecent {
            victim.close(checkpointing: false)
            evictionCount += 1
        }
    }

    func storeDidOpen(_ store: DeviceStore) {
        openCount += 1
        linkAsMostRecent(store)
    }

    func storeWasUsed(_ store: DeviceStore) {
        guard store !== mostRecent else { return }
        unlink(store)
        linkAsMostRecent(store)
    }

    func storeDidClose(_ store: DeviceStore) {
        openCount -= 1
        unlink(store)
    }

    private func linkAsMostRecent(_ store: DeviceStore) {
        store.newerInPool = nil
        store.olderInPool = mostRecent
        if let previous = mostRecent {
            previous.newerInPool = store
        } else {
            leastRecent = store
        }
        mostRecent = store
    }

    private func unlink(_ store: DeviceStore) {
        if let newer = store.newerInPool {
            newer.olderInPool = store.olderInPool
        } else {
            mostRecent = store.olderInPool
        }
        if let older = store.olderInPool {
            older.newerInPool = store.newerInPool
        } else {
            leastRecent = store.newerInPool
        }
        store.newerInPool = nil
        store.olderInPool = nil
    }
}
