import BeekonDevice

/// The fleet's transfers by number: those a device waits for, and those it stopped waiting for
/// (its timeout, its network's loss) whose real request is still out, so that their late end is
/// counted once, as whose it was, and never heard.
struct TransferBook {
    /// The last number given; numbers start at 1, in the order the devices sent.
    private(set) var lastNumber = 0
    /// Uploads and refreshes the devices have sent and not yet heard the end of.
    private(set) var waited: [Int: TransferInFlight] = [:]
    /// Heard as `offline` by their device while their real request is out.
    private var offline: [Int: (slot: Int, upload: Bool)] = [:]
    /// Given up on by their device and cancelled on the wire: the transport's report of their end
    /// is dropped.
    private var cancelled: Set<Int> = []
    /// Uploads whose device stopped waiting while the real request is out: their fixes, so a 2xx
    /// that comes later is counted and recorded as unheard.
    private var unheard: [Int: UnheardUpload] = [:]
    /// What a transfer's body weighs on the wire, for a modelled network's bandwidth.
    var wireSizes = WireSizes()

    /// An upload its device stopped waiting for: whose, which batch, its fix ids.
    struct UnheardUpload {
        var slot: Int
        var batchID: UUIDv7
        var fixIDs: [UUIDv7]
        /// The process of its device that sent it (`PhoneOS.life`).
        var life: Int
    }

    /// What the books said of a transfer no device waits for when its real end came.
    struct LateEnd {
        /// An upload whose device stopped waiting.
        var unheard: UnheardUpload?
        var cancelled: Bool
        var offline: Bool
    }

    /// Opens `transfer` under the next number and returns it.
    mutating func open(_ transfer: TransferInFlight) -> Int {
        lastNumber += 1
        waited[lastNumber] = transfer
        return lastNumber
    }

    /// A waited transfer, changed in place (one hash lookup, no copy); nil for one no device
    /// waits for. Only `open` adds one and only `close` removes one.
    subscript(number: Int) -> TransferInFlight? {
        get { waited[number] }
        _modify { yield &waited[number] }
    }

    /// The waited transfers' numbers, in the order they were sent.
    var numbers: [Int] { waited.keys.sorted() }

    /// Its device heard how it ended: it is no longer waited for.
    mutating func close(_ number: Int) -> TransferInFlight? {
        waited.removeValue(forKey: number)
    }

    /// Its device heard `offline` while the real request is out.
    mutating func markOffline(_ number: Int, slot: Int, upload: Bool) {
        offline[number] = (slot, upload)
    }

    /// Its device gave up on it and it was cancelled on the wire.
    mutating func markCancelled(_ number: Int) {
        cancelled.insert(number)
    }

    /// An upload its device stopped waiting for while its real request is out.
    mutating func markUnheard(_ number: Int, _ upload: UnheardUpload) {
        unheard[number] = upload
    }

    /// The device an upload belongs to, waited for or not (nil for a refresh, or a number no book
    /// holds).
    func uploadOwner(_ number: Int) -> Int? {
        if let transfer = waited[number] {
            guard case .upload = transfer.kind else { return nil }
            return transfer.slot
        }
        if let unheard = unheard[number] { return unheard.slot }
        if let offline = offline[number], offline.upload { return offline.slot }
        return nil
    }

    /// The real end of a transfer no device waits for: what the books said of it, taken out of them.
    mutating func lateEnd(_ number: Int) -> LateEnd {
        LateEnd(
            unheard: unheard.removeValue(forKey: number), cancelled: cancelled.remove(number) != nil,
            offline: offline.removeValue(forKey: number) != nil)
    }
}
