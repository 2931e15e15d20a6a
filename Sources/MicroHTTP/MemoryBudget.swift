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

/// Bytes taken from a `MemoryBudget` by one holder, given back when it is released or goes away,
/// so no path (a refusal, a timeout, a dropped connection) can leak them.
public final class MemoryReservation: Sendable {
    private let budget: MemoryBudget?
    private let held = Mutex(0)

    /// A reservation of nothing yet from `budget` (nil: no budget, every `grow` succeeds).
    public init(_ budget: MemoryBudget?) {
        self.budget = budget
    }

    deinit {
        release()
    }

    /// Takes `bytes` more; false, taking nothing, when the budget would pass its limit.
    public func grow(_ bytes: Int) -> Bool {
        guard let budget else { return true }
        guard budget.reserve(bytes) else { return false }
        held.withLock { $0 += bytes }
        return true
    }

    /// Bytes held.
    public var bytes: Int { held.withLock { $0 } }

    /// Gives everything back.
    public func release() {
        let bytes = held.withLock { held in
            defer { held = 0 }
            return held
        }
        if bytes > 0 { budget?.release(bytes) }
    }
}
