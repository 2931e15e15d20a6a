import Synchronization

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
