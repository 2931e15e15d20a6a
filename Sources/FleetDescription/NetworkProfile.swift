import BeekonDevice

/// The network a phone uploads over, as numbers the engine draws each transfer's fate from
/// (`LinkDraw`): its uplink's bandwidth, its latency as a distribution, the share of packets it
/// loses, and how often a name lookup, a TLS handshake or a body fails. The named profiles'
/// numbers are the project's choices (docs/device-model.md, "Network profiles").
public struct NetworkProfile: Sendable, Hashable {
    /// Uplink bandwidth, kbit/s (1000 bits a second): the body takes its gzipped size ÷ this.
    public var uplinkKbps: Double
    /// The median of the time the link adds to a request and its answer, ms.
    public var latencyMedianMillis: Int64
    /// Its 95th percentile, ms (at least the median): with the median it fixes a log-normal.
    public var latencyP95Millis: Int64
    /// The share of the uplink's packets lost: each loss delays the body by a retransmission,
    /// six in a row reset the connection.
    public var loss: Double
    /// The share of transfers whose name lookup fails (`dns`).
    public var dns: Double
    /// The share of transfers whose TLS handshake fails (`tls`).
    public var tls: Double
    /// The share of transfers whose connection is reset part-way through the body (`reset`).
    public var resetMidBody: Double

    /// A profile of these numbers.
    public init(
        uplinkKbps: Double, latencyMedianMillis: Int64, latencyP95Millis: Int64, loss: Double, dns: Double,
        tls: Double, resetMidBody: Double
    ) {
        self.uplinkKbps = uplinkKbps
        self.latencyMedianMillis = latencyMedianMillis
        self.latencyP95Millis = latencyP95Millis
        self.loss = loss
        self.dns = dns
        self.tls = tls
        self.resetMidBody = resetMidBody
    }

    /// A named profile, as `network:` and `networkProfile` write it.
    public enum Name: String, Sendable, Hashable, CaseIterable, Codable {
        case wifi, lte
        case threeG = "3g"
        case edge, lossy

        /// "one of …" every name, for errors.
        public static let oneOf = "one of \(allCases.map(\.rawValue).joined(separator: ", "))"
    }

    /// The numbers of a named profile (docs/device-model.md says why each).
    public static func named(_ name: Name) -> NetworkProfile {
        switch name {
        case .wifi:
            NetworkProfile(
                uplinkKbps: 20_000, latencyMedianMillis: 20, latencyP95Millis: 80, loss: 0.001, dns: 0.0005,
                tls: 0.0002, resetMidBody: 0.0005)
        case .lte:
            NetworkProfile(
                uplinkKbps: 5_000, latencyMedianMillis: 60, latencyP95Millis: 250, loss: 0.005, dns: 0.001,
                tls: 0.001, resetMidBody: 0.002)
        case .threeG:
            NetworkProfile(
                uplinkKbps: 384, latencyMedianMillis: 150, latencyP95Millis: 600, loss: 0.01, dns: 0.003,
                tls: 0.003, resetMidBody: 0.005)
        case .edge:
            NetworkProfile(
                uplinkKbps: 100, latencyMedianMillis: 400, latencyP95Millis: 1_500, loss: 0.02, dns: 0.005,
                tls: 0.005, resetMidBody: 0.01)
        case .lossy:
            NetworkProfile(
                uplinkKbps: 1_000, latencyMedianMillis: 200, latencyP95Millis: 2_000, loss: 0.1, dns: 0.02,
                tls: 0.02, resetMidBody: 0.03)
        }
    }

    /// A link that adds nothing: what `networkProfile`'s own numbers override on a device whose
    /// group has no `network:`.
    public static let unlimited = NetworkProfile(
        uplinkKbps: uplinkKbpsRange.upper, latencyMedianMillis: 0, latencyP95Millis: 0, loss: 0, dns: 0, tls: 0,
        resetMidBody: 0)

    /// `uplinkKbps`: 1 kbit/s to 1 Gbit/s.
    public static let uplinkKbpsRange = NumberRange(1...1_000_000, unit: "kbit/s")
    /// `latency.median`: up to a minute.
    public static let latencyMedianRange = NumberRange.integer(0...60_000, unit: "ms")
    /// `latency.tail`: how far the 95th percentile lies above the median, up to two minutes.
    public static let latencyTailRange = NumberRange.integer(0...120_000, unit: "ms")
    /// `loss`: up to half the packets.
    public static let lossRange = NumberRange(0...0.5)
    /// `dns`, `tls`, `resetMidBody`: shares of transfers.
    public static let shareRange = NumberRange(0...1)
}

/// A network as a group's `network:` or a `networkProfile` action writes it: a named profile
/// and any of its numbers overridden. Without a profile, the numbers given override the device's
/// group's own (`NetworkProfile.unlimited` when the group has none); with none given at all, a
/// `networkProfile` action puts the group's own back (how its fault ends).
public struct NetworkSpec: Sendable, Hashable {
    public var profile: NetworkProfile.Name?
    public var uplinkKbps: Double?
    public var latencyMedianMillis: Int64?
    /// How far the 95th percentile lies above the median, ms (`latency.tail`): p95 = median + tail.
    public var latencyTailMillis: Int64?
    public var loss: Double?
    public var dns: Double?
    public var tls: Double?
    public var resetMidBody: Double?

    /// A spec of these values; nothing given is the group's own profile.
    public init(
        profile: NetworkProfile.Name? = nil, uplinkKbps: Double? = nil, latencyMedianMillis: Int64? = nil,
        latencyTailMillis: Int64? = nil, loss: Double? = nil, dns: Double? = nil, tls: Double? = nil,
        resetMidBody: Double? = nil
    ) {
        self.profile = profile
        self.uplinkKbps = uplinkKbps
        self.latencyMedianMillis = latencyMedianMillis
        self.latencyTailMillis = latencyTailMillis
        self.loss = loss
        self.dns = dns
        self.tls = tls
        self.resetMidBody = resetMidBody
    }

    /// Nothing given: the group's own profile.
    public var isGroupDefault: Bool { self == NetworkSpec() }

    /// The profile it describes on a device whose group has `groupProfile` (nil: no `network:`).
    /// Nil when it names nothing and overrides nothing on a group without a profile: the link is
    /// not modelled. A median given alone keeps the profile's tail (its p95 above its median), a
    /// tail alone the profile's median, so every override is a distribution with p95 ≥ median.
    public func resolved(over groupProfile: NetworkProfile?) -> NetworkProfile? {
        if isGroupDefault { return groupProfile }
        var profile = self.profile.map(NetworkProfile.named) ?? groupProfile ?? .unlimited
        if let uplinkKbps { profile.uplinkKbps = uplinkKbps }
        let tail = latencyTailMillis ?? (profile.latencyP95Millis - profile.latencyMedianMillis)
        if let latencyMedianMillis { profile.latencyMedianMillis = latencyMedianMillis }
        profile.latencyP95Millis = profile.latencyMedianMillis + tail
        if let loss { profile.loss = loss }
        if let dns { profile.dns = dns }
        if let tls { profile.tls = tls }
        if let resetMidBody { profile.resetMidBody = resetMidBody }
        return profile
    }
}
