import BeekonDevice
import Yams

extension FleetFileReader {
    /// The keys of a `network:` map, as a group writes it; `networkProfile`'s parameters are the
    /// same names.
    static let networkKeys: Set<String> = [
        "profile", "uplinkKbps", "latency", "loss", "dns", "tls", "resetMidBody",
    ]

    /// A group's `network:`: a profile's name (`lte`) or a map of a profile and the numbers that
    /// override it. Nil when it is not a network (each problem reported).
    mutating func readNetwork(_ node: Node) -> NetworkProfile? {
        if let text = node.scalar?.string {
            guard let name = NetworkProfile.Name(rawValue: text) else {
                report(
                    node, "`network` \"\(text)\" is not a network profile",
                    expected: "\(NetworkProfile.Name.oneOf), or a map such as `{profile: lte, uplinkKbps: 2000}`")
                problems[problems.count - 1].field = "network"
                return nil
            }
            return .named(name)
        }
        guard let map = mapping(node, "network") else { return nil }
        checkKeys(map, Self.networkKeys, in: "network")
        let before = problems.count
        var spec = NetworkSpec()
        if let profileNode = map["profile"] {
            spec.profile = choice(profileNode, "network.profile", NetworkProfile.Name.allCases.map(\.rawValue))
                .flatMap(NetworkProfile.Name.init(rawValue:))
        }
        if let uplinkNode = map["uplinkKbps"] {
            spec.uplinkKbps = number(uplinkNode, "network.uplinkKbps", NetworkProfile.uplinkKbpsRange)
        }
        if let latencyNode = map["latency"], let latency = readLatency(latencyNode, "network.latency") {
            spec.latencyMedianMillis = latency.median
            spec.latencyTailMillis = latency.tail
        }
        let shares: [(String, WritableKeyPath<NetworkSpec, Double?>, NumberRange)] = [
            ("loss", \.loss, NetworkProfile.lossRange), ("dns", \.dns, NetworkProfile.shareRange),
            ("tls", \.tls, NetworkProfile.shareRange), ("resetMidBody", \.resetMidBody, NetworkProfile.shareRange),
        ]
        for (key, path, range) in shares {
            if let valueNode = map[key] { spec[keyPath: path] = number(valueNode, "network.\(key)", range) }
        }
        guard problems.count == before else { return nil }
        return spec.resolved(over: nil)
    }

    /// A `latency` map: `{median: MS, tail: MS}` (p95 = median + tail), each a number of ms or a
    /// duration (`250ms`). The tail, not the p95, so no pair of values is refused for its order.
    mutating func readLatency(_ node: Node, _ field: String) -> (median: Int64?, tail: Int64?)? {
        guard let map = mapping(node, field) else { return nil }
        checkKeys(map, ["median", "tail"], in: field)
        let before = problems.count
        let median = map["median"].flatMap { millis($0, "\(field).median", NetworkProfile.latencyMedianRange) }
        let tail = map["tail"].flatMap { millis($0, "\(field).tail", NetworkProfile.latencyTailRange) }
        guard problems.count == before else { return nil }
        return (median, tail)
    }
}

extension FleetFileReader {
    /// A group's `flapping:`: `{meanOnline: 20m, meanOffline: 45s, handover: 0.25}`, each key
    /// optional (`Flapping.standard`'s number when left out). Nil after a problem (each reported).
    mutating func readFlapping(_ node: Node) -> Flapping? {
        guard let map = mapping(node, "flapping") else { return nil }
        checkKeys(map, ["meanOnline", "meanOffline", "handover"], in: "flapping")
        let before = problems.count
        var spec = FlappingSpec()
        spec.meanOnlineMillis = map["meanOnline"].flatMap { millis($0, "flapping.meanOnline", Flapping.meanRange) }
        spec.meanOfflineMillis = map["meanOffline"].flatMap {
            millis($0, "flapping.meanOffline", Flapping.meanRange)
        }
        spec.handover = map["handover"].flatMap { number($0, "flapping.handover", Flapping.handoverRange) }
        guard problems.count == before else { return nil }
        return spec.isGroupDefault ? .standard : spec.resolved(over: nil)
    }
}
