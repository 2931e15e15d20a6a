import BeekonDevice
import Testing

@testable import FleetEngine

/// The transfer book alone: numbers in send order, and the late end of a transfer its device
/// stopped waiting for told once, as whose it was.
@Suite("Transfer book")
struct TransferBookTests {
    static func transfer(slot: Int, upload: Bool = true, fixes: Int = 3) -> TransferInFlight {
        TransferInFlight(
            slot: slot, kind: upload ? .upload(UUIDv7(high: 1, low: 2)) : .refresh, sentAt: 0, deadline: 30_000,
            fixIDs: (0..<fixes).map { UUIDv7(high: 7, low: UInt64($0)) }, hangs: false, injectedLatencyMillis: 0,
            life: 0)
    }

    @Test("numbers run from 1 in the order sent; a closed transfer is no longer waited for or changed")
    func numbers() {
        var book = TransferBook()
        #expect(book.open(Self.transfer(slot: 4)) == 1)
        #expect(book.open(Self.transfer(slot: 5, upload: false)) == 2)
        book[1]?.answerAt = 100
        #expect(book[1]?.answerAt == 100 && book.numbers == [1, 2])
        #expect(book.close(1)?.slot == 4)
        book[1]?.answerAt = 200
        #expect(book[1] == nil && book.numbers == [2] && book.lastNumber == 2)
    }

    @Test(
        """
        a late end says what its device did: stopped waiting for an upload, gave up and cancelled, or lost \
        the network; once
        """)
    func lateEnds() {
        var book = TransferBook()
        for slot in 0..<4 { _ = book.open(Self.transfer(slot: slot, upload: slot != 3, fixes: slot + 1)) }
        for number in 1...4 { _ = book.close(number) }
        for (number, slot) in [(1, 0), (2, 1)] {
            let fixIDs = (0..<number).map { UUIDv7(high: 7, low: UInt64($0)) }
            book.markUnheard(
                number, .init(slot: slot, batchID: UUIDv7(high: 1, low: UInt64(number)), fixIDs: fixIDs, life: 0))
        }
        book.markCancelled(2)
        book.markOffline(3, slot: 2, upload: true)
        book.markOffline(4, slot: 3, upload: false)
        #expect(book.uploadOwner(1) == 0 && book.uploadOwner(3) == 2)
        #expect(book.uploadOwner(4) == nil, "a refresh has no upload owner")
        let first = book.lateEnd(1)
        #expect(
            first.unheard?.fixIDs.count == 1 && first.unheard?.batchID == UUIDv7(high: 1, low: 1) && !first.cancelled
                && !first.offline)
        let second = book.lateEnd(2)
        #expect(second.unheard?.slot == 1 && second.cancelled && !second.offline)
        #expect(book.lateEnd(3).offline && book.lateEnd(4).offline)
        let again = book.lateEnd(1)
        #expect(again.unheard == nil && !again.cancelled && !again.offline, "told once")
        #expect(book.uploadOwner(1) == nil)
    }
}
