/// Where a run is, as `FleetRuntime.phase` and the admin's `GET /healthz` report it.
public enum RunPhase: String, Sendable, CaseIterable {
    /// Prepared; its loop has not started.
    case starting
    /// Its loop runs and takes commands.
    case running
    /// Asked to stop, or its duration is over: it drains uploads and closes its stores.
    case stopping
}
