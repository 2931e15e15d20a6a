import BeekonDevice
import FleetDescription

/// The fleet's virtual clock: a virtual start instant, a warp factor, and pauses.
///
/// Pure: it is given readings of a monotonic real clock (nanoseconds) and answers what virtual
/// instant (Unix ms) that is, and how long to wait in real time for a virtual deadline. Every
/// timestamp a device produces comes from here. `warp` 1 is real time; 60 is an hour a minute.
///
/// The clock never runs far ahead of the virtual time the loop has reached: a loop that falls
/// behind (more timers than the machine can fire at this warp) drops the lag with
/// `dropLag(reached:realNanos:)` instead of racing to catch up, and a pause or a warp change
/// starts from the time reached, so no timer past it fires afterwards.
public struct FleetClock: Sendable, Hashable {
    /// The warps a fleet accepts: the fleet description's (`FleetFile.warpRange`).
    public static let warpRange = FleetFile.warpRange

    /// How far, in real time, the clock may run ahead of the time the loop reached before the
    /// lag is dropped: 100 ms, the loop's longest sleep, so a loop that keeps up never drops
    /// any, and one that cannot is at most this far behind a pause or a warp change.
    public static let maxLagRealNanos: UInt64 = 100_000_000

    /// The virtual instant at the last re-anchoring, Unix ms.
    private var anchorVirtualMillis: Double
    /// The real reading at the last re-anchoring, ns.
    private var anchorRealNanos: UInt64
    /// Virtual seconds per real second, within `warpRange`.
    public private(set) var warp: Double
    /// Whether virtual time stands still.
    public private(set) var isPaused = false

    /// A clock that reads `startMillis` at the real reading `realNanos`; `warp` is taken into
    /// `warpRange` (callers check it first, with the message of their surface).
    public init(startMillis: Int64, warp: Double, realNanos: UInt64) {
        anchorVirtualMillis = Double(startMillis)
        anchorRealNanos = realNanos
        self.warp = Self.bounded(warp)
    }

    /// The virtual instant at the real reading `realNanos`.
    public func now(realNanos: UInt64) -> Int64 {
        Int64(virtualMillis(at: realNanos).rounded(.down))
    }

    /// Real nanoseconds to wait from `realNanos` until the virtual `deadline`; nil while paused
    /// (the deadline never comes on its own).
    public func realWait(until deadline: Int64, from realNanos: UInt64) -> UInt64? {
        guard !isPaused else { return nil }
        let virtualGap = Double(deadline) - virtualMillis(at: realNanos)
        guard virtualGap > 0 else { return 0 }
        // At most a day: a far deadline is waited for in steps, never converted past UInt64.
        return UInt64(min(virtualGap / warp * 1_000_000, 86_400e9).rounded(.up))
    }

    /// The real reading at which a running clock reaches `virtual` (the last anchoring's, for an
    /// instant at or before it): the inverse of `now(realNanos:)`, rounded up so that
    /// `now(realNanos: realNanos(reaching: v)) >= v`.
    public func realNanos(reaching virtual: Int64) -> UInt64 {
        let gap = Double(virtual) - anchorVirtualMillis
        guard gap > 0, !isPaused else { return anchorRealNanos }
        return anchorRealNanos + UInt64((gap / warp * 1_000_000).rounded(.up))
    }

    /// The virtual ms the clock may run ahead of the time reached: `maxLagRealNanos` at this warp.
    public var maxLagMillis: Int64 {
        Int64((Double(Self.maxLagRealNanos) / 1_000_000 * warp).rounded(.up))
    }

    /// When the clock at `realNanos` is more than `maxLagMillis` ahead of `reached` (the virtual
    /// time the loop has fired every timer up to), re-anchors it at `reached`; returns the
    /// virtual ms dropped (0 when the loop keeps up).
    public mutating func dropLag(reached: Int64, realNanos: UInt64) -> Int64 {
        let lag = now(realNanos: realNanos) - reached
        guard lag > maxLagMillis else { return 0 }
        anchor(atVirtual: Double(reached), realNanos: realNanos)
        return lag
    }

    /// Changes the warp from the real reading `realNanos` on, starting from `reached` when the
    /// clock ran ahead of it; returns the virtual ms dropped. `newWarp` is taken into `warpRange`.
    @discardableResult
    public mutating func setWarp(_ newWarp: Double, realNanos: UInt64, reached: Int64? = nil) -> Int64 {
        let dropped = reanchor(at: realNanos, reached: reached)
        warp = Self.bounded(newWarp)
        return dropped
    }

    /// Stops (true) or restarts (false) virtual time at the real reading `realNanos`, from
    /// `reached` when the clock ran ahead of it; returns the virtual ms dropped.
    @discardableResult
    public mutating func setPaused(_ paused: Bool, realNanos: UInt64, reached: Int64? = nil) -> Int64 {
        let dropped = reanchor(at: realNanos, reached: reached)
        isPaused = paused
        return dropped
    }

    private func virtualMillis(at realNanos: UInt64) -> Double {
        guard !isPaused, realNanos > anchorRealNanos else { return anchorVirtualMillis }
        return anchorVirtualMillis + Double(realNanos - anchorRealNanos) / 1_000_000 * warp
    }

    private mutating func reanchor(at realNanos: UInt64, reached: Int64?) -> Int64 {
        let current = virtualMillis(at: realNanos)
        guard let reached, Double(reached) < current.rounded(.down) else {
            anchor(atVirtual: current, realNanos: realNanos)
            return 0
        }
        anchor(atVirtual: Double(reached), realNanos: realNanos)
        return Int64(current.rounded(.down)) - reached
    }

    private mutating func anchor(atVirtual virtual: Double, realNanos: UInt64) {
        anchorVirtualMillis = virtual
        anchorRealNanos = max(anchorRealNanos, realNanos)
    }

    private static func bounded(_ warp: Double) -> Double {
        warp.isNaN ? 1 : min(max(warp, warpRange.lower), warpRange.upper)
    }
}
