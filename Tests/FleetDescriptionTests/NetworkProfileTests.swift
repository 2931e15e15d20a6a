import BeekonDevice
import Testing

@testable import FleetDescription

/// A group's `network:` and the `networkProfile` action: what they read, what they resolve to,
/// and how they refuse.
@Suite("Network profiles in fleet files")
struct NetworkProfileTests {
    static func fleet(network: String, fault: String = "") -> String {
        """
        name: networks
        groups:
          - name: g
            count: 2
            route: r.csv
            network: \(network)
        faults:
          - at: 1m
            action: sync
        \(fault)
        """
    }

    static func group(_ network: String) throws -> DeviceGroup {
        try FleetFile.parse(yaml: fleet(network: network), file: "f.yaml").groups[0]
    }

    @Test(
        "a group's network is a named profile, or a map whose numbers override one",
        arguments: [
            ("lte", NetworkProfile.named(.lte)),
            ("3g", NetworkProfile.named(.threeG)),
            ("{profile: edge}", NetworkProfile.named(.edge)),
            (
                "{profile: lte, uplinkKbps: 2000, latency: {median: 60ms, tail: 190}, loss: 0.01}",
                NetworkProfile(
                    uplinkKbps: 2000, latencyMedianMillis: 60, latencyP95Millis: 250, loss: 0.01, dns: 0.001,
                    tls: 0.001, resetMidBody: 0.002)
            ),
            // No profile: the numbers override a link that adds nothing.
            (
                "{dns: 0.5}",
                NetworkProfile(
                    uplinkKbps: 1_000_000, latencyMedianMillis: 0, latencyP95Millis: 0, loss: 0, dns: 0.5, tls: 0,
                    resetMidBody: 0)
            ),
        ])
    func reads(network: String, expected: NetworkProfile) throws {
        #expect(try Self.group(network).network == expected)
    }

    @Test("a group without network: has none: the link is not modelled")
    func absent() throws {
        let yaml = Self.fleet(network: "wifi").replacingOccurrences(of: "    network: wifi\n", with: "")
        #expect(try FleetFile.parse(yaml: yaml, file: "f.yaml").groups[0].network == nil)
    }

    @Test(
        "a network it cannot take is refused at its line, naming the field, the value and what it expects",
        arguments: [
            (
                "5g",
                "f.yaml:6:14: error: `network` \"5g\" is not a network profile; expected one of wifi, lte, 3g, "
                    + "edge, lossy, or a map such as `{profile: lte, uplinkKbps: 2000}`"
            ),
            (
                "{profile: 5g}",
                "f.yaml:6:24: error: `network.profile` \"5g\" is not one of its words; expected one of wifi, lte, 3g, "
                    + "edge, lossy"
            ),
            (
                "{latency: {median: 300, p95: 200}}",
                "f.yaml:6:38: error: unknown key \"p95\" in network.latency; expected one of median, tail"
            ),
            (
                "{profile: edge, latency: {tail: 120001}}",
                "f.yaml:6:46: error: `network.latency.tail` \"120001\" is out of range"
            ),
        ])
    func refuses(network: String, message: String) {
        do throws(FleetFileProblems) {
            _ = try FleetFile.parse(yaml: Self.fleet(network: network), file: "f.yaml")
            Issue.record("\(network) was taken")
        } catch {
            #expect(error.problems.count == 1)
            #expect(error.problems.first?.description.hasPrefix(message) == true, "\(error.problems)")
        }
    }

    @Test("an unknown key in network: is refused")
    func unknownKey() {
        do throws(FleetFileProblems) {
            _ = try FleetFile.parse(yaml: Self.fleet(network: "{bandwidth: 10}"), file: "f.yaml")
            Issue.record("bandwidth was taken")
        } catch {
            #expect(error.problems.count == 1)
            #expect(error.problems.first?.description.contains("bandwidth") == true)
        }
    }

    @Test("networkProfile takes the group map's keys, and reads back what it was given")
    func action() throws {
        let fault = """
              - at: 2m
                for: 5m
                action: networkProfile
                params: {profile: edge, latency: {median: 500}, dns: 0.5}
            """
        let fleet = try FleetFile.parse(yaml: Self.fleet(network: "wifi", fault: fault), file: "f.yaml")
        let action = fleet.faults[1].action
        let spec = NetworkSpec(profile: .edge, latencyMedianMillis: 500, dns: 0.5)
        #expect(action == .networkProfile(spec))
        #expect(FleetAction(.networkProfile, action.parameterValues) == action)
        // It begins a fault; its `for` ends it with the group's own network.
        #expect(action.beginsFault && action.endsByOpposite)
        #expect(action.undoing == .networkProfile(NetworkSpec()))
        #expect(action.undoing?.beginsFault == false)
        let edge = NetworkProfile.named(.edge)
        #expect(spec.resolved(over: .named(.wifi))?.latencyMedianMillis == 500)
        // A median alone keeps the profile's tail.
        #expect(
            spec.resolved(over: .named(.wifi))?.latencyP95Millis
                == 500 + edge.latencyP95Millis - edge.latencyMedianMillis)
        #expect(NetworkSpec().resolved(over: .named(.wifi)) == .named(.wifi))
        #expect(NetworkSpec().resolved(over: nil) == nil)
        // Numbers alone override the group's own: a median keeps the profile's tail, a tail its median.
        let wifi = NetworkProfile.named(.wifi)
        let moved = NetworkSpec(latencyMedianMillis: 5000).resolved(over: .named(.wifi))
        #expect(moved?.latencyP95Millis == 5000 + wifi.latencyP95Millis - wifi.latencyMedianMillis)
        #expect(moved?.uplinkKbps == wifi.uplinkKbps)
        let flat = NetworkSpec(latencyTailMillis: 0).resolved(over: .named(.wifi))
        #expect(
            flat?.latencyMedianMillis == wifi.latencyMedianMillis && flat?.latencyP95Millis == wifi.latencyMedianMillis)
    }

    @Test(
        "networkProfile's latency is a median and a tail (p95 = median + tail): every pair in range is a distribution",
        arguments: [
            ("{median: 900, tail: 100}", 900, 1000), ("{tail: 0}", 20, 20), ("{median: 0, tail: 120000}", 0, 120_000),
        ]
    )
    func actionLatency(latency: String, median: Int64, p95: Int64) throws {
        let fault = """
              - at: 2m
                action: networkProfile
                params: {latency: \(latency)}
            """
        let fleet = try FleetFile.parse(yaml: Self.fleet(network: "wifi", fault: fault), file: "f.yaml")
        guard case .networkProfile(let spec) = fleet.faults[1].action else {
            Issue.record("not a networkProfile")
            return
        }
        let profile = spec.resolved(over: .named(.wifi))
        #expect(profile?.latencyMedianMillis == median && profile?.latencyP95Millis == p95)
    }

    @Test("every named profile is within the ranges a fleet file may write")
    func profilesInRange() {
        for name in NetworkProfile.Name.allCases {
            let profile = NetworkProfile.named(name)
            #expect(NetworkProfile.uplinkKbpsRange.contains(profile.uplinkKbps))
            #expect(NetworkProfile.latencyMedianRange.contains(Double(profile.latencyMedianMillis)))
            #expect(
                NetworkProfile.latencyTailRange.contains(Double(profile.latencyP95Millis - profile.latencyMedianMillis))
            )
            #expect(profile.latencyP95Millis >= profile.latencyMedianMillis)
            #expect(NetworkProfile.lossRange.contains(profile.loss))
            for share in [profile.dns, profile.tls, profile.resetMidBody] {
                #expect(NetworkProfile.shareRange.contains(share))
            }
        }
    }
}
