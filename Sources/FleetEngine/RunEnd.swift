/// What ended a run, as `FleetRuntime.run` returns it and `run`'s summary line says it.
public enum RunEnd: Sendable, Hashable, Codable {
    /// `stop()` was called (Ctrl-C, SIGTERM, a test).
    case stopped
    /// The wall-clock limit (`--duration`) of this many ms was reached.
    case wallClockLimit(millis: Int64)
    /// The virtual-time limit (`--for`, `duration:`) of this many ms was reached.
    case virtualTimeLimit(millis: Int64)
}
