import FleetDescription
import Testing

@testable import FleetEngine

/// The fault book alone: the API's faults numbered after the timeline's, in the order its actions
/// came, and what it ended early.
@Suite("Fault book")
struct FaultBookTests {
    static func entry(_ action: FleetAction, at: Int64 = 0) -> FaultEntry {
        FaultEntry(atMillis: at, forMillis: nil, selector: .all, action: action, line: 0)
    }

    @Test("the API's actions take numbers after the timeline's; only the faults it began are entries")
    func numbering() {
        var book = FaultBook(timeline: [Self.entry(.networkOffline), Self.entry(.latency(millis: 500))])
        #expect(book.drains.measuring, "a timeline fault with an opposite: drains measured from the start")
        let first = book.numberAPIAction()
        let second = book.numberAPIAction()
        #expect((first, second) == (3, 4) && book.apiActions == 2)
        book.apiBegan(second, Self.entry(.revokePermission, at: 60_000))
        #expect(book.numbers == [0, 1, 4])
        #expect(book.entry(1)?.source == .timeline && book.entry(4)?.source == .api && book.entry(3) == nil)
        #expect(book.endedEarlyAt(4) == nil)
        book.endEarly(4, at: 90_000)
        #expect(book.endedEarlyAt(4) == 90_000)
        #expect(!FaultBook(timeline: [Self.entry(.sync)]).drains.measuring)
    }
}
