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
            spec.latencyP95Millis = latency.p95
        }
        let shares: [(String, WritableKeyPath<NetworkSpec, Double?>, NumberRange)] = [
            ("loss", \.loss, NetworkProfile.lossRange), ("dns", \.dns, NetworkProfile.shareRange),
            ("tls", \.tls, NetworkProfile.shareRange), ("resetMidBody", \.resetMidBody, NetworkProfile.shareRange),
        ]
        for (key, path, range) in shares {
            if let valueNode = map[key] { spec[keyPath: path] = number(valueNode, "network.\(key)", range) }
        }
        guard problems.count == before else { return nil }
        checkLatencyOrder(spec, at: map["latency"] ?? node, field: "network.latency")
        guard problems.count == before else { return nil }
        return spec.resolved(over: nil)
    }

    /// A `latency` map: `{median: MS, p95: MS}`, each a number of ms or a duration (`250ms`).
    mutating func readLatency(_ node: Node, _ field: String) -> (median: Int64?, p95: Int64?)? {
        guard let map = mapping(node, field) else { return nil }
        checkKeys(map, ["median", "p95"], in: field)
        let before = problems.count
        let median = map["median"].flatMap { millis($0, "\(field).median", NetworkProfile.latencyMedianRange) }
        let p95 = map["p95"].flatMap { millis($0, "\(field).p95", NetworkProfile.latencyP95Range) }
        guard problems.count == before else { return nil }
        return (median, p95)
    }

    /// Refuses a p95 below its median, where both are known: given together, or one given over a
    /// named profile's other. (Over the group's own profile, an action's lone p95 below that
    /// median is raised to it: see `NetworkSpec.resolved`.)
    mutating func checkLatencyOrder(_ spec: NetworkSpec, at node: Node, field: String) {
        let named = spec.profile.map(NetworkProfile.named)
        let median = spec.latencyMedianMillis ?? named?.latencyMedianMillis
        let p95 = spec.latencyP95Millis ?? named?.latencyP95Millis
        guard let median, let p95, p95 < median else { return }
        report(
            node, "`\(field).p95` \(p95) ms is below the median, \(median) ms",
            expected: "a p95 from the median (\(median) ms) to \(Int64(NetworkProfile.latencyP95Range.upper)) ms")
        problems[problems.count - 1].field = "\(field).p95"
    }
}
