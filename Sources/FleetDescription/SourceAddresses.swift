import BeekonDevice

/// The local addresses a fleet's connections leave from (`run --source-addresses`, the fleet
/// file's `network.sourceAddresses`), as k6's `localIPs`: IPv4 addresses and ranges, in the order
/// written. Each device keeps one (`address(ordinal:)`), so a per-IP rate limiter or a load
/// balancer hashing on the client's address sees many phones, not one machine.
public struct SourceAddresses: Sendable, Hashable, CustomStringConvertible {
    /// A run of consecutive addresses.
    struct Span: Sendable, Hashable {
        var first: UInt32
        var count: Int
    }

    private let spans: [Span]
    /// How many addresses there are: 1 to `countRange`'s most.
    public let count: Int

    /// How many addresses a list may hold: 1 to 65,536 (a /16).
    public static let countRange = NumberRange.integer(1...65_536, unit: "addresses")

    /// The addresses `text` lists: comma-separated `A.B.C.D` and `A.B.C.D-E.F.G.H` (both ends
    /// included), each unicast, none twice.
    public init(reading text: String) throws(SourceAddressProblem) {
        var spans: [Span] = []
        var total = 0
        let items = text.split(separator: ",", omittingEmptySubsequences: false).map(Self.trimmed)
        for item in items {
            guard !item.isEmpty else {
                throw SourceAddressProblem(item: text, reason: "an empty item in the list")
            }
            let ends = item.split(separator: "-", omittingEmptySubsequences: false)
            guard ends.count <= 2 else { throw SourceAddressProblem(item: item, reason: "more than one `-`") }
            let first = try Self.unicast(Self.trimmed(ends[0]), in: item)
            let last = try ends.count == 2 ? Self.unicast(Self.trimmed(ends[1]), in: item) : first
            guard last >= first else {
                throw SourceAddressProblem(item: item, reason: "the range ends before it starts")
            }
            let count = Int(last - first) + 1
            total += count
            guard total <= Int(Self.countRange.upper) else {
                throw SourceAddressProblem(
                    item: item, reason: "the list grows to \(total) addresses, over the most, 65536")
            }
            spans.append(Span(first: first, count: count))
        }
        // One address twice would put two devices' worth of load on it while claiming otherwise.
        let sorted = spans.sorted { $0.first < $1.first }
        for (before, after) in zip(sorted, sorted.dropFirst())
        where UInt64(before.first) + UInt64(before.count) > UInt64(after.first) {
            throw SourceAddressProblem(
                item: Self.text(after.first), reason: "it is in the list twice (ranges overlap)")
        }
        self.spans = spans
        count = total
    }

    /// The address of `index` (0 to `count` − 1), in the order the list wrote them.
    public subscript(index: Int) -> String {
        precondition((0..<count).contains(index), "an address index inside the list")
        var rest = index
        for span in spans {
            if rest < span.count { return Self.text(span.first + UInt32(rest)) }
            rest -= span.count
        }
        preconditionFailure("the spans hold `count` addresses")
    }

    /// The address the device `ordinal` leaves from: the fleet's devices in the fleet file's
    /// order (each group's `count` after the groups before it, then its own index) take the
    /// addresses in turn, so every address carries the same number of devices, give or take
    /// one, and a device's address depends neither on the seed nor on the shard that runs it.
    public func address(ordinal: Int) -> String {
        self[((ordinal % count) + count) % count]
    }

    /// The address the device `ordinal` leaves from on cellular, after a handover (`flapping`):
    /// the one half the list away from its Wi-Fi address (`address(ordinal:)`), so each network
    /// of a phone has its own address whenever the list has two or more.
    public func cellularAddress(ordinal: Int) -> String {
        address(ordinal: ordinal + count / 2)
    }

    /// The list as written back: ranges `A-B`, single addresses alone.
    public var description: String {
        spans.map {
            $0.count == 1 ? Self.text($0.first) : Self.text($0.first) + "-" + Self.text($0.first + UInt32($0.count - 1))
        }.joined(separator: ",")
    }

    /// Every address, in order (a start checks each can be bound).
    public var all: [String] { (0..<count).map { self[$0] } }

    private static func unicast(_ text: String, in item: String) throws(SourceAddressProblem) -> UInt32 {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else {
            throw SourceAddressProblem(item: item, reason: "\"\(text)\" is not an IPv4 address (four numbers, dotted)")
        }
        var value: UInt32 = 0
        for part in parts {
            guard !part.isEmpty, part.count <= 3, part.allSatisfy(\.isASCII), let octet = UInt8(part),
                part.count == 1 || part.first != "0"
            else {
                throw SourceAddressProblem(
                    item: item, reason: "\"\(text)\" is not an IPv4 address (each part 0 to 255, no leading 0)")
            }
            value = value << 8 | UInt32(octet)
        }
        // 0.0.0.0 binds any address, 224/4 is multicast, 240/4 reserved and broadcast: none is a
        // phone's address.
        guard value != 0, value >> 28 < 0xE else {
            throw SourceAddressProblem(item: item, reason: "\(text) is not a unicast address")
        }
        return value
    }

    private static func trimmed(_ text: Substring) -> String {
        String(
            text.drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed()
        )
    }

    private static func text(_ value: UInt32) -> String {
        (0..<4).map { String(value >> (24 - 8 * $0) & 0xFF) }.joined(separator: ".")
    }
}

/// Why a list of source addresses was refused: the item, and what is wrong with it.
public struct SourceAddressProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// The item (an address or range) the problem is in.
    public var item: String
    /// What is wrong.
    public var reason: String

    /// What the list should hold, for messages.
    public static let expected =
        "IPv4 addresses and ranges, comma-separated (`127.0.0.2-127.0.0.250,10.0.0.7`), 1 to 65536 in all"

    public var description: String { "\"\(item)\": \(reason)" }
}
