import BeekonNet

/// What a run sent, folded into 64 bits (FNV-1a): each device's requests in the order that device
/// sent them (device, method, URL path and query, headers, uncompressed body, and the source
/// address when one is set), then the devices in the order of their ids. Two runs of the same fleet file and seed with
/// `--deterministic` and a server whose answers depend only on the requests send the same
/// requests, so they print the same digest; a run that differs anywhere (a batch id, a `sent_at`,
/// one fix) prints another. Folding per device is what lets devices run ahead of one another at
/// `--warp max` (`LoopSchedule.lookahead`): how their requests interleave depends on when real
/// answers came, what each device sends does not. Not a cryptographic hash: it compares runs, it
/// does not sign them.
public struct RequestDigest: Sendable, Hashable, Codable {
    /// Requests folded in.
    public private(set) var count = 0
    /// Each device's digest so far, by device id.
    private var devices: [String: UInt64] = [:]
    /// Other parts of the fleet's devices, taken in by `merge` as they are (shared, not copied:
    /// a merged digest is made several times a second and read at the run's end).
    private var mergedParts: [[String: UInt64]] = []

    private static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325

    /// No requests yet.
    public init() {}

    /// Folds in one request of device `device`.
    package mutating func add(device: String, request: OutboundRequest) {
        count += 1
        var value = devices[device] ?? Self.offsetBasis
        Self.fold(device.utf8, into: &value)
        Self.fold(request.head.method.rawValue.utf8, into: &value)
        Self.fold(Self.pathAndQuery(request.head.target).utf8, into: &value)
        for field in request.head.headerFields {
            Self.fold(field.name.rawName.utf8, into: &value)
            Self.fold(field.value.utf8, into: &value)
        }
        Self.fold(request.body, into: &value)
        // Only when set, so a run without source addresses keeps the digest it had before them.
        if let address = request.sourceAddress { Self.fold(address.utf8, into: &value) }
        devices[device] = value
    }

    /// Takes in what another part of the fleet sent (another shard's devices): the digest is then
    /// the one a single loop running both parts prints.
    public mutating func merge(_ other: RequestDigest) {
        count += other.count
        mergedParts.append(other.devices)
        mergedParts += other.mergedParts
    }

    /// The digest so far: each device's, in the order of device ids (a device in two parts, which
    /// no split of a fleet makes, counts once, as the first part has it).
    public var value: UInt64 {
        var all = devices
        for part in mergedParts { all.merge(part) { mine, _ in mine } }
        var value = Self.offsetBasis
        for (device, digest) in all.sorted(by: { $0.key < $1.key }) {
            Self.fold(device.utf8, into: &value)
            Self.fold((0..<8).map { UInt8(truncatingIfNeeded: digest >> (8 * $0)) }, into: &value)
        }
        return value
    }

    /// The URL without its scheme, host and port: the same run against a server on another port
    /// (the in-process receiver picks a free one each time) sends the same requests.
    static func pathAndQuery(_ url: String) -> Substring {
        guard let scheme = url.range(of: "://") else { return url[...] }
        let rest = url[scheme.upperBound...]
        return rest.firstIndex(of: "/").map { rest[$0...] } ?? "/"
    }

    /// Two digests are equal when they folded in as many requests and come to the same value,
    /// however they were put together.
    public static func == (lhs: RequestDigest, rhs: RequestDigest) -> Bool {
        lhs.count == rhs.count && lhs.value == rhs.value
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        hasher.combine(value)
    }

    /// `0123456789abcdef`: sixteen hex digits.
    public var text: String {
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Each part ends with a 0xff byte (which UTF-8 never contains), so `ab`+`c` and `a`+`bc` differ.
    private static func fold<Bytes: Sequence>(_ bytes: Bytes, into value: inout UInt64) where Bytes.Element == UInt8 {
        for byte in bytes {
            value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        value = (value ^ 0xff) &* 0x0000_0100_0000_01b3
    }
}
