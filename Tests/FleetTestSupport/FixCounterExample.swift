import FleetEngine

/// The run's own counts of fixes, each set: what every surface that reads `FixAccount.counters`
/// (the API's fixes, the report, the CSV, `/metrics`) is held to.
package enum FixCounterExample {
    /// A snapshot whose every own count is set, each to a value of its own.
    package static func snapshot() -> FleetSnapshot {
        var account = FixAccount()
        for (index, counter) in FixAccount.counters.enumerated() { account[keyPath: counter.value] = 101 + index }
        var snapshot = FleetSnapshot()
        snapshot.groups = ["walkers"]
        snapshot.metrics.fixes = account
        snapshot.metrics.fixesByGroup = [account]
        return snapshot
    }
}
