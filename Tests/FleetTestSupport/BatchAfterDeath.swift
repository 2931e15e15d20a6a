/// What the two batch-after-death suites share: the simulated one (`BatchAfterDeathTests`) and the
/// real process killed with SIGKILL (`BatchAfterSIGKILLTests`).
package enum BatchAfterDeath {
    /// Where in the device's first upload the process dies.
    package enum Step: String, CaseIterable, Sendable {
        /// The batch is assembled and stored as sent, and waits for its token: never on the wire.
        case beforeSend
        /// On the wire; the server answers 503 after the death: it stored nothing.
        case inFlight
        /// The server stored it and answered 200 after the death: acknowledged, never heard.
        case answeredUnheard
        /// The 200 was heard and the rows deleted.
        case afterDelete
    }

    /// A route walked at 10 m/s, a point every 10 s from `Workspace.start`: the precision gate
    /// (10 s, 30 m) admits each.
    package static func route() -> String {
        var csv = "time,lat,lon\n"
        for index in 0..<400 {
            csv += "\(Workspace.start / 1000 + Int64(index) * 10),\(52.5 + Double(index) * 0.0009),13.4\n"
        }
        return csv
    }
}
