/// The loop's change log, oldest first, numbered without gaps, in chunks shared with the
/// snapshots published from it.
///
/// A plain array shared with the last published snapshot was copied whole by the next append: at
/// 100,000 devices the log keeps 401,024 changes or more, and that copy, four times a second, was
/// 15 % of the loop's thread. Here an append copies at most the last chunk and the list of
/// chunks, trimming drops whole chunks from the front, and a reader finds the changes past the
/// last number it saw by arithmetic, not by a walk over the log.
public struct DeviceChangeLog: Sequence, Sendable {
    static let chunkSize = 1024

    /// Full chunks, oldest first, then the one being filled.
    private var chunks: [[DeviceChange]] = []
    /// How many changes the log holds.
    public private(set) var count = 0

    public init() {}

    /// The oldest change held.
    public var first: DeviceChange? { chunks.first?.first }
    /// The newest change.
    public var last: DeviceChange? { chunks.last?.last }

    /// Adds `change`, numbered one past the last (precondition).
    mutating func append(_ change: DeviceChange) {
        precondition(last.map { change.number == $0.number + 1 } ?? true, "change \(change.number) out of order")
        if chunks.isEmpty || chunks[chunks.count - 1].count == Self.chunkSize {
            var chunk: [DeviceChange] = []
            chunk.reserveCapacity(Self.chunkSize)
            chunks.append(chunk)
        }
        chunks[chunks.count - 1].append(change)
        count += 1
    }

    /// Drops the oldest chunks while at least `kept` changes would remain.
    mutating func dropOldest(keeping kept: Int) {
        var dropped = 0
        while dropped < chunks.count - 1, count - chunks[dropped].count >= kept {
            count -= chunks[dropped].count
            dropped += 1
        }
        chunks.removeFirst(dropped)
    }

    /// The changes numbered after `number`, oldest first.
    public func changes(after number: UInt64) -> [DeviceChange] {
        let offset = first.map { number >= $0.number ? Int(number - $0.number) + 1 : 0 } ?? 0
        guard offset < count else { return [] }
        var found: [DeviceChange] = []
        found.reserveCapacity(count - offset)
        found += chunks[offset / Self.chunkSize][(offset % Self.chunkSize)...]
        for chunk in chunks[(offset / Self.chunkSize + 1)...] { found += chunk }
        return found
    }

    public func makeIterator() -> FlattenSequence<[[DeviceChange]]>.Iterator {
        chunks.joined().makeIterator()
    }
}
