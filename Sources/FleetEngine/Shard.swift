import BeekonDevice

/// One part of a fleet split over loops or processes: shard `index` of `count` runs the devices
/// whose place in their group (`walkers-0001` is place 0) leaves `index` when divided by `count`.
/// Every group is split evenly, whatever its size, and a device's install id, seed streams, route
/// phase and faults do not depend on which shard runs it, so the shards together are the same
/// fleet as one loop, device for device.
public struct Shard: Sendable, Hashable, CustomStringConvertible {
    /// From 0.
    public let index: Int
    /// How many shards the fleet is split into: 1 to `countRange`'s most.
    public let count: Int

    /// `count`: 1 to 1,024.
    public static let countRange = NumberRange.integer(1...1024, unit: "shards")

    /// The whole fleet: one shard of one.
    public static let whole = Shard(checkedIndex: 0, count: 1)

    /// Shard `index` (from 0) of `count`; refuses a count out of `countRange` or an index not below it.
    public init(index: Int, count: Int) throws(NumberProblem) {
        _ = try Self.countRange.check(Double(count))
        _ = try NumberRange.integer(0...Int64(count - 1)).check(Double(index))
        self.init(checkedIndex: index, count: count)
    }

    private init(checkedIndex index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// The shards of a fleet split `count` ways, in order.
    public static func all(_ count: Int) throws(NumberProblem) -> [Shard] {
        _ = try countRange.check(Double(count))
        return (0..<count).map { Shard(checkedIndex: $0, count: count) }
    }

    /// Whether this shard runs the device at `place` in its group (from 0).
    public func owns(_ place: Int) -> Bool {
        Self.index(owning: place, of: count) == index
    }

    /// The index of the shard of `count` that runs the device at `place` (from 0).
    public static func index(owning place: Int, of count: Int) -> Int {
        place % count
    }

    /// How many of a group's first `devices` places this shard runs.
    public func share(of devices: Int) -> Int {
        devices > index ? (devices - index + count - 1) / count : 0
    }

    /// This shard split again over `loops` loops of one process: loop j runs the shard's devices
    /// whose place, divided by `count`, leaves j when divided by `loops` (shard `index + count × j`
    /// of `count × loops`, beyond `countRange` when it must be).
    public func split(_ loops: Int) -> [Shard] {
        (0..<max(1, loops)).map { Shard(checkedIndex: index + count * $0, count: count * max(1, loops)) }
    }

    /// Which of `split(loops)` runs the device at `place` (one of this shard's).
    public func loop(owning place: Int, of loops: Int) -> Int {
        (place / count) % max(1, loops)
    }

    /// `2/4`: the index from 0, then the count.
    public var description: String { "\(index)/\(count)" }
}

extension Shard: Codable {
    private enum CodingKeys: String, CodingKey {
        case index, count
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(index, forKey: .index)
        try container.encode(count, forKey: .count)
    }

    /// Refuses what `init(index:count:)` refuses.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let index = try container.decode(Int.self, forKey: .index)
        let count = try container.decode(Int.self, forKey: .count)
        do throws(NumberProblem) {
            try self.init(index: index, count: count)
        } catch {
            throw DecodingError.dataCorruptedError(
                forKey: .index, in: container, debugDescription: "shard \(index)/\(count): \(error)")
        }
    }
}
