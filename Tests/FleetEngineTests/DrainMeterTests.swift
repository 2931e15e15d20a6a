import FleetDescription
import Testing

@testable import FleetEngine

/// The drain meter alone: backlog changes in, drains out, counted by instant whatever order the
/// changes came in.
@Suite("Drain meter")
struct DrainMeterTests {
    /// A fault underway from 100 to 200 with the backlog at 5 before it; `changes` after that,
    /// noted in the given order, then settled up to 1,000.
    static func drain(_ changes: [(at: Int64, change: Int)]) -> FaultDrain {
        var meter = DrainMeter(measuring: true)
        var drains: [FaultDrain] = []
        meter.note(5, at: 10)
        meter.settle(before: 100, drains: &drains)
        meter.faultBegan(0, at: 100)
        meter.note(3, at: 150)
        meter.settle(before: 200, drains: &drains)
        meter.faultEnded(0, at: 200, source: .timeline, action: .networkOffline, drains: &drains)
        for (at, change) in changes { meter.note(change, at: at) }
        meter.settle(before: 1_000, drains: &drains)
        return drains[0]
    }

    @Test(
        """
        a drain ends at the first instant the backlog is back to where it was before its fault, whatever order \
        the changes were noted in
        """,
        arguments: [
            // (changes after the fault's end, noted in this order; when it drained, ms after the end)
            ([(300, -3)], 100 as Int64?),
            ([(400, -2), (300, -1)], 200),
            ([(300, -1), (300, -2)], 100),
            ([(500, -3), (300, +1)], nil),
            ([(300, -4), (350, +1)], 100),
            ([(999, -3)], 799),
            ([(1_000, -3)], nil),
        ] as [([(Int64, Int)], Int64?)])
    func drainTime(changes: [(Int64, Int)], drained: Int64?) {
        let drain = Self.drain(changes.map { (at: $0.0, change: $0.1) })
        #expect(drain.pendingBefore == 5 && drain.pendingAtEnd == 8)
        #expect(drain.drainMillis == drained)
    }

    @Test("a fault that ends with no more pending than before it drained at once")
    func nothingToDrain() {
        var meter = DrainMeter(measuring: true)
        var drains: [FaultDrain] = []
        meter.note(4, at: 0)
        meter.settle(before: 10, drains: &drains)
        meter.faultBegan(3, at: 10)
        meter.note(-1, at: 15)
        meter.settle(before: 20, drains: &drains)
        let drain = meter.faultEnded(3, at: 20, source: .api, action: .latency, drains: &drains)
        #expect(drain?.drainMillis == 0 && drain?.pendingAtEnd == 3 && drains.count == 1)
        #expect(meter.underway.isEmpty)
        #expect(meter.faultEnded(3, at: 30, source: .api, action: .latency, drains: &drains) == nil)
    }

    @Test("started late, by the API at an instant: the backlog there counts its changes at that instant once")
    func startedLate() {
        var meter = DrainMeter(measuring: false)
        var drains: [FaultDrain] = []
        meter.note(2, at: 40)
        meter.note(1, at: 50)
        meter.note(1, at: 50)
        #expect(!meter.needsSettling(before: 60))
        meter.start(at: 50, pendingNow: 4)
        #expect(meter.settledPending == 2 && meter.settledBefore == 50)
        meter.settle(before: 51, drains: &drains)
        #expect(meter.settledPending == 4)
        meter.note(7, at: 20)  // a store first read late: before the settled instant, counted at once
        #expect(meter.settledPending == 11)
    }
}
