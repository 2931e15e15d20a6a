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
                "{profile: lte, uplinkKbps: 2000, latency: {median: 60ms, p95: 250}, loss: 0.01}",
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
                "f.yaml:6:24: error: `network.latency.p95` 200 ms is below the median, 300 ms; expected a p95 from "
                    + "the median (300 ms) to 120000 ms"
            ),
            (
                "{profile: edge, latency: {p95: 200}}",
                "f.yaml:6:39: error: `network.latency.p95` 200 ms is below the median, 400 ms; expected a p95 from "
                    + "the median (400 ms) to 120000 ms"
            ),
        ])
    func refuses(network: String, message: String) {
        do throws(FleetFileProblems) {
            _ = try FleetFile.parse(yaml: Self.fleet(network: network), file: "f.yaml")
            Issue.record("\(network) was taken")
        } catch {
            #expect(error.problems.map(\.description) == [message])
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
        #expect(spec.resolved(over: .named(.wifi))?.latencyP95Millis == edge.latencyP95Millis)
        #expect(NetworkSpec().resolved(over: .named(.wifi)) == .named(.wifi))
        #expect(NetworkSpec().resolved(over: nil) == nil)
        // Numbers alone override the group's own; a p95 left below a new median is raised to it.
        let raised = NetworkSpec(latencyMedianMillis: 5000).resolved(over: .named(.wifi))
        #expect(raised?.latencyP95Millis == 5000 && raised?.uplinkKbps == NetworkProfile.named(.wifi).uplinkKbps)
    }

    @Test("networkProfile refuses a p95 below its median")
    func actionLatencyOrder() {
        let fault = """
              - at: 2m
                action: networkProfile
                params: {latency: {median: 900, p95: 100}}
            """
        do throws(FleetFileProblems) {
            _ = try FleetFile.parse(yaml: Self.fleet(network: "wifi", fault: fault), file: "f.yaml")
            Issue.record("p95 below the median was taken")
        } catch {
            #expect(error.problems.map(\.field) == ["params.latency.p95"])
        }
    }

    @Test("every named profile is within the ranges a fleet file may write")
    func profilesInRange() {
        for name in NetworkProfile.Name.allCases {
            let profile = NetworkProfile.named(name)
            #expect(NetworkProfile.uplinkKbpsRange.contains(profile.uplinkKbps))
            #expect(NetworkProfile.latencyMedianRange.contains(Double(profile.latencyMedianMillis)))
            #expect(NetworkProfile.latencyP95Range.contains(Double(profile.latencyP95Millis)))
            #expect(profile.latencyP95Millis >= profile.latencyMedianMillis)
            #expect(NetworkProfile.lossRange.contains(profile.loss))
            for share in [profile.dns, profile.tls, profile.resetMidBody] {
                #expect(NetworkProfile.shareRange.contains(share))
            }
        }
    }
}
