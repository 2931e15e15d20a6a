import BeekonDevice
import BeekonNet
import Testing

@testable import FleetEngine
@testable import FleetRuntime

/// The fleet's connection cap alone: what waits, what goes on the wire, in what order.
@Suite("Connection cap")
struct ConnectionCapTests {
    static func transfer(_ number: Int) -> OutgoingTransfer {
        OutgoingTransfer(
            number: number, kind: .refresh, sentAt: 0,
            http: OutboundRequest(url: "http://127.0.0.1:1/", connectionKey: "d\(number)"))
    }

    @Test("without a cap nothing waits")
    func noCap() {
        var cap = ConnectionCap(limit: 0)
        for _ in 0..<1_000 { cap.sent() }
        #expect(!cap.mustHold)
    }

    @Test("a full cap holds what comes; answers release the held in the order they came, with how long each waited")
    func fullCapReleasesInOrder() {
        var cap = ConnectionCap(limit: 2)
        cap.sent()
        cap.sent()
        #expect(cap.mustHold)
        for number in [7, 8, 9] { cap.hold(Self.transfer(number), realNanos: 1_000_000) }
        #expect(cap.release(realNanos: 5_000_000) == nil, "no room yet")
        cap.ended(1)
        let first = cap.release(realNanos: 5_000_000)
        #expect(first?.transfer.number == 7 && first?.waitedMillis == 4)
        cap.sent()
        #expect(cap.release(realNanos: 6_000_000) == nil, "full again")
        cap.ended(2)
        var released: [Int] = []
        while let next = cap.release(realNanos: 9_000_000) {
            released.append(next.transfer.number)
            cap.sent()
        }
        #expect(released == [8, 9])
        #expect(cap.inFlight == 2 && cap.mustHold)
    }

    @Test("while any wait, a new request waits behind them even with room: first come, first on the wire")
    func waitersFirst() {
        var cap = ConnectionCap(limit: 1)
        cap.sent()
        cap.hold(Self.transfer(1), realNanos: 0)
        cap.ended(1)
        #expect(cap.mustHold, "room, but one waits")
    }

    @Test("a held request its device gave up on is never released")
    func cancelledNeverSent() {
        var cap = ConnectionCap(limit: 1)
        cap.sent()
        cap.hold(Self.transfer(1), realNanos: 0)
        cap.hold(Self.transfer(2), realNanos: 0)
        cap.cancelHeld(1)
        cap.ended(1)
        #expect(cap.release(realNanos: 0)?.transfer.number == 2)
        #expect(cap.release(realNanos: 0) == nil)
    }
}
