/// What the engine asks its driver to do in the world. The engine appends effects as it
/// advances; the driver drains them (`FleetLoop.takeEffects()`) after each step and carries
/// them out in order.
enum FleetEffect {
    /// Make this request (by transfer number); its result comes back to `transferFinished`.
    case send(OutgoingTransfer)
    /// Remember the install ids (`devices.json`): they name every device's store, so a run on
    /// the same data folder finds the same devices.
    case recordInstallIDs([String: String])
    /// A line for standard error (store errors, refused SDK calls), already rate-limited.
    case warn(String)
    /// A line for standard output (the start's notice of a resumed run).
    case notice(String)
}
