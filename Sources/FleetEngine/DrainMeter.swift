import FleetDescription

/// How long the fleet's backlog took to drain after each fault (`FaultDrain`): the fixes pending
/// when a fault began, and the first instant after its end at which the backlog is back there.
///
/// Backlog changes are counted by the virtual instant they happened at, not the order they were
/// noted in: devices running ahead at max warp change the backlog before the fleet's clock gets
/// there, in an order that depends on when real answers came. The loop settles the changes before
/// an instant once every device has reached it, so a drain is the same in every run.
struct DrainMeter {
    /// Whether drains are measured: from the start when the timeline has a fault with an opposite,
    /// else from the first such fault the API begins (`start`).
    private(set) var measuring: Bool
    /// Changes to the fixes pending not yet counted in `settledPending`, each at its instant.
    private var unsettled: [(at: Int64, change: Int)] = []
    /// The earliest instant in `unsettled` (`.max` when empty), so a settling with nothing due
    /// does not look through the changes devices ahead made.
    private var earliestUnsettled = Int64.max
    /// Until drains are measured: the latest instant the backlog changed at, and by how much.
    private var latestChange: (at: Int64, change: Int) = (.min, 0)
    /// The fixes pending, counting every change before `settledBefore`.
    private(set) var settledPending = 0
    private(set) var settledBefore = Int64.min
    /// Faults with an opposite action that are underway: when each began, and the fixes pending.
    private(set) var underway: [Int: (at: Int64, pending: Int)] = [:]
    /// Drains still open (their backlog not back yet).
    private var open = 0

    /// A meter that measures from the start, or from `start(at:pendingNow:)`.
    init(measuring: Bool) {
        self.measuring = measuring
    }

    /// The backlog changed by `change` at `time`.
    mutating func note(_ change: Int, at time: Int64) {
        guard change != 0 else { return }
        guard measuring else {
            // Only what changed at the latest instant, for a drain `start` may begin there.
            if time > latestChange.at {
                latestChange = (time, change)
            } else if time == latestChange.at {
                latestChange.change += change
            }
            return
        }
        if time < settledBefore {
            // Before the settled instant (a store first read late): counted at once.
            settledPending += change
        } else {
            unsettled.append((time, change))
            earliestUnsettled = min(earliestUnsettled, time)
        }
    }

    /// Whether `settle(before: instant, …)` has anything to do (the loop first commits the rows
    /// admitted before the instant, which count before it too).
    func needsSettling(before instant: Int64) -> Bool {
        measuring && instant > settledBefore
    }

    /// Counts the changes before `instant`, in the order of their instants, ending each open
    /// drain in `drains` at the first instant the backlog is back to where it was. Call once
    /// every device has reached `instant` (no change before it is still to come).
    mutating func settle(before instant: Int64, drains: inout [FaultDrain]) {
        guard needsSettling(before: instant) else { return }
        settledBefore = instant
        guard earliestUnsettled < instant else { return }
        var due: [(at: Int64, change: Int)] = []
        var earliest = Int64.max
        unsettled.removeAll { entry in
            guard entry.at < instant else {
                earliest = min(earliest, entry.at)
                return false
            }
            due.append(entry)
            return true
        }
        earliestUnsettled = earliest
        due.sort { $0.at < $1.at }
        var index = 0
        while index < due.count {
            let at = due[index].at
            while index < due.count, due[index].at == at {
                settledPending += due[index].change
                index += 1
            }
            if open > 0 { closeDrains(at: at, in: &drains) }
        }
    }

    /// Starts measuring at `time`, a command's instant every device stands at, with `pendingNow`
    /// the fleet's pending fixes there (its changes at the instant included, counted once settled).
    mutating func start(at time: Int64, pendingNow: Int) {
        guard !measuring else { return }
        measuring = true
        let atInstant = latestChange.at == time ? latestChange.change : 0
        settledPending = pendingNow - atInstant
        settledBefore = time
        if atInstant != 0 {
            unsettled = [(time, atInstant)]
            earliestUnsettled = time
        }
    }

    /// Fault `number` began at `time` (settled up to it): its drain returns to this backlog.
    mutating func faultBegan(_ number: Int, at time: Int64) {
        underway[number] = (time, settledPending)
    }

    /// Fault `number` ended at `time` (settled up to it): its drain, timed from here, is added to
    /// `drains` (drained at once when the backlog is no higher than before it). Nil when it was
    /// not underway.
    @discardableResult
    mutating func faultEnded(
        _ number: Int, at time: Int64, source: ActionSource, action: FleetAction.Name, drains: inout [FaultDrain]
    ) -> FaultDrain? {
        guard let began = underway.removeValue(forKey: number) else { return nil }
        let pending = settledPending
        let drain = FaultDrain(
            fault: number, source: source, action: action, startedAt: began.at, endedAt: time,
            pendingBefore: began.pending, pendingAtEnd: pending, drainMillis: pending <= began.pending ? 0 : nil)
        drains.append(drain)
        if pending > began.pending { open += 1 }
        return drain
    }

    /// Ends the drains whose backlog is back to where it was before their fault.
    private mutating func closeDrains(at time: Int64, in drains: inout [FaultDrain]) {
        for index in drains.indices where drains[index].drainMillis == nil {
            if settledPending <= drains[index].pendingBefore {
                drains[index].drainMillis = time - drains[index].endedAt
                open -= 1
            }
        }
    }
}
