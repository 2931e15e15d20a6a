import BeekonDevice
import FleetDescription

/// The fleet control API: what the admin API (and anything else) may do to a running fleet,
/// whichever driver runs it (`FleetRuntime` on the wall clock, `SimulatedRuntime` on virtual
/// time alone). Reads come from the published snapshot; each command answers through `reply`
/// once the snapshot showing its effect is published (so a read right after the answer sees it).
/// Keep `reply` short: hand the answer over and return.
public protocol FleetControl: AnyObject, Sendable {
    /// The latest snapshot of the fleet (devices, stats, clock), safe from any thread.
    var snapshot: FleetSnapshot { get }
    /// Where the run is (`GET /healthz`).
    var phase: RunPhase { get }
    /// The part of the fleet this process runs (`run --shard`).
    var shard: Shard { get }
    /// Adds devices from a group's template or an inline group; answers their ids.
    func spawn(_ request: SpawnRequest, reply: @escaping @Sendable (Result<[String], FleetControlError>) -> Void)
    /// Stops a device and forgets it for listing and selection; its store stays on disk.
    func deleteDevice(_ id: String, reply: @escaping @Sendable (Result<Void, FleetControlError>) -> Void)
    /// Applies an action to the devices `selector` picks; answers their ids.
    func apply(
        _ action: FleetAction, to selector: FaultSelector,
        reply: @escaping @Sendable (Result<[String], FleetControlError>) -> Void)
    /// Sets the warp (a rate, or `max`), pauses or resumes virtual time, and/or brings the fleet to
    /// `devices` devices (`FleetLoop.setFleetDevices`, which ends any stages); nil leaves that one
    /// as it is.
    func updateFleet(
        warp: Warp?, paused: Bool?, devices: Int?, reply: @escaping @Sendable (Result<Void, FleetControlError>) -> Void)
    /// A device's stored fixes with `from <= timestamp <= to` (virtual Unix ms), oldest first, at most `limit`.
    func locations(
        of id: String, from: Int64, to: Int64, limit: Int,
        reply: @escaping @Sendable (Result<[Location], FleetControlError>) -> Void)
    /// Ends a fault of the fleet file's timeline now (`FleetLoop.endFaultEarly`).
    func endFault(_ index: Int, reply: @escaping @Sendable (Result<Void, FleetControlError>) -> Void)
    /// Starts the upload statistics over (`FleetLoop.resetStatistics`).
    func resetStatistics(reply: @escaping @Sendable (Result<Void, FleetControlError>) -> Void)
}

extension FleetControlError {
    /// A warp the control API refuses (`warp`, a rate outside `FleetClock.warpRange`); nil and
    /// `max` pass.
    package static func checkWarp(_ warp: Warp?) throws(FleetControlError) {
        guard let warp = warp?.rate else { return }
        do throws(NumberProblem) {
            _ = try FleetClock.warpRange.check(warp)
        } catch {
            throw FleetControlError(.badRequest, "warp \(error)", field: "warp")
        }
    }
}
