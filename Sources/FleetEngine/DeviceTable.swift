/// Every device slot's `DeviceSnapshot`, by slot: what the loop keeps from one publication to
/// the next, rewriting only the devices something happened to (`FleetLoop.recordChanges`).
///
/// Held in chunks of 64 boxed devices, so a publication shares the whole table with the loop
/// and the loop's next change to a chunk copies 64 references, not 64 devices' fields (a device
/// holds some twenty references, each retained by a copy): publishing costs what changed, not
/// what exists. What depends on the clock alone (a token's expiry, the breaker's end) is worked out
/// when a device is read, at the virtual instant of the publication (`now`).
public struct DeviceTable: RandomAccessCollection, ExpressibleByArrayLiteral, Sendable {
    static let chunkShift = 6
    static let chunkMask = (1 << chunkShift) - 1

    /// One device's snapshot, never changed: a new one replaces it.
    final class Box: Sendable {
        let device: DeviceSnapshot
        init(_ device: DeviceSnapshot) { self.device = device }
    }

    private var chunks: [[Box]] = []
    /// How many slots the table holds.
    public private(set) var count = 0
    /// The virtual instant the devices are read at, Unix ms.
    public internal(set) var now: Int64 = .min

    public init() {}

    /// A table of `devices`, slot by slot (for a snapshot made by hand).
    public init(_ devices: some Sequence<DeviceSnapshot>) {
        for device in devices { set(count, device) }
    }

    public init(arrayLiteral devices: DeviceSnapshot...) {
        self.init(devices)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    public subscript(position: Int) -> DeviceSnapshot {
        var device = chunks[position >> Self.chunkShift][position & Self.chunkMask].device
        device.auth = device.auth.seen(at: now)
        return device
    }

    /// `body` of slot `index`'s snapshot as stored, read in place: no copy of its fields, and its
    /// `auth` as last written rather than seen at `now`. For a few fields of many devices (the
    /// device list's filters and sort keys).
    package func read<Value>(_ index: Int, _ body: (DeviceSnapshot) -> Value) -> Value {
        body(chunks[index >> Self.chunkShift][index & Self.chunkMask].device)
    }

    /// Sets slot `index`'s snapshot; `index` is at most `count` (the next slot is appended).
    mutating func set(_ index: Int, _ device: DeviceSnapshot) {
        setBox(index, Box(device))
    }

    /// The box holding slot `index`'s snapshot: the same box until the device changes.
    func box(_ index: Int) -> Box {
        chunks[index >> Self.chunkShift][index & Self.chunkMask]
    }

    /// Sets slot `index` to `box`, which another table may hold too (a fleet's table shares its
    /// shards' boxes: `SnapshotMerger`); `index` is at most `count`.
    mutating func setBox(_ index: Int, _ box: Box) {
        precondition(index <= count, "device table slot \(index) past its end \(count)")
        if index == count {
            if index & Self.chunkMask == 0 {
                chunks.append([])
                chunks[chunks.count - 1].reserveCapacity(1 << Self.chunkShift)
            }
            chunks[index >> Self.chunkShift].append(box)
            count += 1
        } else {
            chunks[index >> Self.chunkShift][index & Self.chunkMask] = box
        }
    }
}
