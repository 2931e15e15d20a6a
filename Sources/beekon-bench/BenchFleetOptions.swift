import ArgumentParser
import FleetCommandLine
import FleetDescription
import FleetEngine
import Foundation

/// The bench fleet's settings that every fleet benchmark shares: how many devices, how fast,
/// how many uploads at once and how spread out their start is.
struct BenchFleetOptions: ParsableArguments {
    @Option(help: "How many devices, 1 to 100000.", transform: FlagNumber.integer(DeviceGroup.countRange))
    var devices = 1000

    @Option(help: "Virtual seconds per real second, 0.01 to 10000.", transform: FlagNumber.real(FleetClock.warpRange))
    var warp: Double = 60

    @Option(
        help: "Most uploads in flight at once, 0 (unlimited) to 65536.",
        transform: FlagNumber.integer(RunOptions.maxConnectionsRange))
    var maxConnections = 256

    @Option(
        help: """
            Devices switch on spread over this much virtual time, e.g. 60s (phones do not all start \
            in the same millisecond).
            """,
        transform: FlagNumber.durationText)
    var spread = "60s"

    @Option(
        help: """
            Event loops to split the devices over, 1 to 64 (default: as `beekon-fleet run`, one per \
            10,000 devices, at most one per core).
            """,
        transform: FlagNumber.integer(RunOptions.loopsRange))
    var loops: Int?

    /// The loops the run takes: as given, else as `beekon-fleet run` would.
    var loopCount: Int {
        loops ?? RunOptions.defaultLoops(devices: devices, cores: ProcessInfo.processInfo.activeProcessorCount)
    }
}
