import FleetDescription

/// The run's faults: the fleet file's timeline, those the admin API began (numbered after the
/// file's, in the order its actions came), which the API ended early and when, and the drains
/// after those with an opposite (`DrainMeter`).
struct FaultBook {
    /// The fleet file's faults, numbered from 0.
    let timeline: [FaultEntry]
    /// Actions the admin API ran so far (seeds `fraction` selectors that give no seed).
    private(set) var apiActions: UInt64 = 0
    /// Faults the admin API began, by number, as a timeline entry would write them.
    private var apiFaults: [Int: FaultEntry] = [:]
    /// Faults the API ended (before their `for`, or without one), and when.
    private var endedEarly: [Int: Int64] = [:]
    /// The backlog's drains after faults, and the faults underway.
    var drains: DrainMeter

    /// The faults of `timeline`; drains are measured from the start when one has an opposite.
    init(timeline: [FaultEntry]) {
        self.timeline = timeline
        drains = DrainMeter(measuring: timeline.contains { $0.action.endsByOpposite })
    }

    /// Fault `number` as a timeline entry writes it, and its source.
    func entry(_ number: Int) -> (entry: FaultEntry, source: ActionSource)? {
        if timeline.indices.contains(number) { return (timeline[number], .timeline) }
        return apiFaults[number].map { ($0, .api) }
    }

    /// Every fault's number: the timeline's, then the API's.
    var numbers: [Int] { Array(timeline.indices) + apiFaults.keys.sorted() }

    /// The number an admin action takes (after the timeline's): the fault it may begin, and the
    /// seed of its fraction's draws.
    mutating func numberAPIAction() -> Int {
        apiActions += 1
        return timeline.count + Int(apiActions)
    }

    /// The API began fault `number`.
    mutating func apiBegan(_ number: Int, _ fault: FaultEntry) {
        apiFaults[number] = fault
    }

    /// The API ended fault `number` at `time`, before its `for` or without one.
    mutating func endEarly(_ number: Int, at time: Int64) {
        endedEarly[number] = time
    }

    /// When the API ended fault `number`, if it did.
    func endedEarlyAt(_ number: Int) -> Int64? { endedEarly[number] }

    /// Whether fault `number` is underway until its opposite ends it.
    func isUnderway(_ number: Int) -> Bool { drains.underway[number] != nil }
}
