/// What the engine asks its driver to do in the world. The engine appends effects as it
/// advances; the driver drains them (`FleetLoop.takeEffects()`) after each step and carries
/// them out in order.
package enum FleetEffect {
    /// Make this request (by transfer number); its result comes back to `transferFinished`.
    case send(OutgoingTransfer)
    /// Its device gave up on this request (by transfer number): take it off the wire, or, when
    /// the driver still holds it behind its connection cap (`onWire` false), never send it. Its
    /// end, if the transport reports one, is not heard.
    case cancel(Int, onWire: Bool)
    /// Remember the install ids (`devices.json`): they name every device's store, so a run on
    /// the same data folder finds the same devices.
    case recordInstallIDs([String: String])
    /// Remember the install ids reinstalls replaced (`installs.json`), by device id, oldest
    /// first: their stores stay on disk, and `verify` reads what each install was told.
    case recordFormerInstalls([String: [String]])
    /// An entry for the log (store errors, refused SDK calls), already rate-limited: the engine
    /// says what and how grave, the driver logs it.
    case log(FleetLogLine)
    /// A line for standard output (the start's notice of a resumed run): part of the run's
    /// output, as its progress lines are, not of its log.
    case notice(String)
}
