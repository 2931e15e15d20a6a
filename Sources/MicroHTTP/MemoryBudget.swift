import Synchronization

/// Bytes of request data held in memory at once, shared by every connection of a server: the
/// daemon takes a body's bytes as they arrive, the responder takes what it makes from them (an
/// inflated body). What would pass the limit is
/// refused, so the server answers 503 instead of running out of memory.
public final class MemoryBudget: Sendable {
    /// The most bytes held at once.
    public let limit: Int
    private let used = Mutex(0)

    /// A budget of `limit` bytes.
    public init(limit: Int) {
        self.limit = limit
    }

    /// Takes `bytes`; false, taking nothing, when that would pass the limit.
    public func reserve(_ bytes: Int) -> Bool {
        used.withLock { used in
            guard bytes <= limit - used else { return false }
            used += bytes
            return true
        }
    }

    /// Gives back `bytes` taken by `reserve`.
    public func release(_ bytes: Int) {
        used.withLock { $0 -= bytes }
    }

    /// Bytes held now.
    public var inUse: Int { used.withLock { $0 } }
}
