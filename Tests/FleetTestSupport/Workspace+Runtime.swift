import FleetEngine
import FleetRuntime
import Foundation

extension Workspace {
    /// Runs the fleet in `yaml` for `virtualMinutes` (at most two real minutes), waiting off the
    /// cooperative pool, and returns the runtime: its snapshot holds every device's last uploads
    /// and the outcome tallies.
    package func runtime(
        _ yaml: String, ingest: String, virtualMinutes: Int64, timing: TransferTiming = .asAnswered,
        maxWarp: Bool = false, loops: Int = 1
    ) async throws -> FleetRuntime {
        var options = RunOptions(
            dataDirectory: data, ingest: ingest, realDurationMillis: 120_000,
            virtualDurationMillis: virtualMinutes * 60_000, routeFolder: folder.path, transferTiming: timing)
        if maxWarp { options.warp = .max }
        options.loops = loops
        let runtime = try FleetRuntime(fleet: try fleet(yaml), options: options)
        _ = try await offPool { try runtime.run(progressEverySeconds: 3600) }
        return runtime
    }
}
