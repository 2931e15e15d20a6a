/// The fleet's virtual clock: a virtual start instant, a warp factor, and pauses.
///
/// Pure: it is given readings of a monotonic real clock (nanoseconds) and answers what virtual
/// instant (Unix ms) that is, and how long to wait in real time for a virtual deadline. Every
/// timestamp a device produces comes from here. `warp` 1 is real time; 60 is an hour a minute.
public struct FleetClock: Sendable, Hashable {
    /// The virtual instant at the last re-anchoring, Unix ms.
    private var anchorVirtualMillis: Double
    /// The real reading at the last re-anchoring, ns.
    private var anchorRealNanos: UInt64
    /// Virtual seconds per real second.
    public private(set) var warp: Double
    /// Whether virtual time stands still.
    public private(set) var isPaused = false

    /// A clock that reads `startMillis` at the real reading `realNanos`.
    public init(startMillis: Int64, warp: Double, realNanos: UInt64) {
        anchorVirtualMillis = Double(startMillis)
        anchorRealNanos = realNanos
        self.warp = max(warp, 0)
    }

    /// The virtual instant at the real reading `realNanos`.
    public func now(realNanos: UInt64) -> Int64 {
        Int64(virtualMillis(at: realNanos).rounded(.down))
    }

    /// Real nanoseconds to wait from `realNanos` until the virtual `deadline`; nil while paused
    /// or with warp 0 (the deadline never comes on its own).
    public func realWait(until deadline: Int64, from realNanos: UInt64) -> UInt64? {
        guard !isPaused, warp > 0 else { return nil }
        let virtualGap = Double(deadline) - virtualMillis(at: realNanos)
        guard virtualGap > 0 else { return 0 }
        return UInt64((virtualGap / warp * 1_000_000).rounded(.up))
    }

    /// Changes the warp from the real reading `realNanos` on; the virtual time so far stands.
    public mutating func setWarp(_ newWarp: Double, realNanos: UInt64) {
        reanchor(at: realNanos)
        warp = max(newWarp, 0)
    }

    /// Stops (true) or restarts (false) virtual time at the real reading `realNanos`.
    public mutating func setPaused(_ paused: Bool, realNanos: UInt64) {
        reanchor(at: realNanos)
        isPaused = paused
    }

    private func virtualMillis(at realNanos: UInt64) -> Double {
        guard !isPaused, realNanos > anchorRealNanos else { return anchorVirtualMillis }
        return anchorVirtualMillis + Double(realNanos - anchorRealNanos) / 1_000_000 * warp
    }

    private mutating func reanchor(at realNanos: UInt64) {
        anchorVirtualMillis = virtualMillis(at: realNanos)
        anchorRealNanos = max(anchorRealNanos, realNanos)
    }
}
