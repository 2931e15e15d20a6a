import FleetDescription
import Testing

@Suite("Source addresses")
struct SourceAddressesTests {
    @Test(
        "a list of addresses and ranges reads to its addresses, written back as given",
        arguments: [
            ("127.0.0.2-127.0.0.250", 249, "127.0.0.2", "127.0.0.250", "127.0.0.2-127.0.0.250"),
            ("10.0.0.7", 1, "10.0.0.7", "10.0.0.7", "10.0.0.7"),
            (" 127.0.0.9 , 10.0.0.250-10.0.1.3", 11, "127.0.0.9", "10.0.1.3", "127.0.0.9,10.0.0.250-10.0.1.3"),
            ("10.1.0.0-10.1.255.255", 65_536, "10.1.0.0", "10.1.255.255", "10.1.0.0-10.1.255.255"),
            ("127.0.0.5-127.0.0.5", 1, "127.0.0.5", "127.0.0.5", "127.0.0.5"),
        ])
    func reads(text: String, count: Int, first: String, last: String, written: String) throws {
        let addresses = try SourceAddresses(reading: text)
        #expect(addresses.count == count)
        #expect(addresses[0] == first)
        #expect(addresses[count - 1] == last)
        #expect(addresses.description == written)
    }

    @Test(
        "a list that is not unicast IPv4 addresses, once each, 1 to 65536 of them, is refused with the item",
        arguments: [
            ("", "\"\": an empty item in the list"),
            ("127.0.0.2,", "\"127.0.0.2,\": an empty item in the list"),
            (
                "127.0.0.300",
                "\"127.0.0.300\": \"127.0.0.300\" is not an IPv4 address (each part 0 to 255, no leading 0)"
            ),
            ("127.0.0.02", "\"127.0.0.02\": \"127.0.0.02\" is not an IPv4 address (each part 0 to 255, no leading 0)"),
            ("::1", "\"::1\": \"::1\" is not an IPv4 address (four numbers, dotted)"),
            ("localhost", "\"localhost\": \"localhost\" is not an IPv4 address (four numbers, dotted)"),
            ("127.0.0.9-127.0.0.3", "\"127.0.0.9-127.0.0.3\": the range ends before it starts"),
            ("1.2.3.4-1.2.3.5-1.2.3.6", "\"1.2.3.4-1.2.3.5-1.2.3.6\": more than one `-`"),
            ("0.0.0.0", "\"0.0.0.0\": 0.0.0.0 is not a unicast address"),
            ("224.0.0.1", "\"224.0.0.1\": 224.0.0.1 is not a unicast address"),
            ("255.255.255.255", "\"255.255.255.255\": 255.255.255.255 is not a unicast address"),
            ("127.0.0.2-127.0.0.9,127.0.0.9", "\"127.0.0.9\": it is in the list twice (ranges overlap)"),
            (
                "10.0.0.0-10.1.0.0",
                "\"10.0.0.0-10.1.0.0\": the list grows to 65537 addresses, over the most, 65536"
            ),
        ])
    func refuses(text: String, message: String) {
        #expect(throws: SourceAddressProblem.self) { try SourceAddresses(reading: text) }
        do {
            _ = try SourceAddresses(reading: text)
        } catch {
            #expect(error.description == message)
        }
    }

    @Test("the fleet's devices take the addresses in turn, evenly, wrapping around")
    func inTurn() throws {
        let addresses = try SourceAddresses(reading: "127.0.0.2-127.0.0.4,10.0.0.1")
        #expect(
            (0..<9).map { addresses.address(ordinal: $0) } == [
                "127.0.0.2", "127.0.0.3", "127.0.0.4", "10.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.4", "10.0.0.1",
                "127.0.0.2",
            ])
    }

    @Test("the fleet file's network.sourceAddresses is read, and a bad one reported at its line with the field")
    func fleetFile() throws {
        let yaml = """
            name: spread
            network:
              sourceAddresses: 127.0.0.2-127.0.0.11
            groups:
              - {name: walkers, count: 2, route: walk.csv}
            """
        let fleet = try FleetFile.parse(yaml: yaml, file: "fleet.yaml")
        #expect(fleet.network.sourceAddresses?.count == 10)
        let plain = try FleetFile.parse(yaml: "name: plain\ngroups: [{name: a, count: 1, route: r.csv}]\n", file: "f")
        #expect(plain.network.sourceAddresses == nil)
        for (network, expected) in [
            (
                "network: {sourceAddresses: 127.0.0.2-127.0.1.0.5}",
                "fleet.yaml:2:28: error: network.sourceAddresses \"127.0.0.2-127.0.1.0.5\": \"127.0.1.0.5\" is not an "
                    + "IPv4 address (four numbers, dotted); expected IPv4 addresses and ranges, comma-separated"
            ),
            (
                "network: {sourceAdresses: 127.0.0.2}",
                "fleet.yaml:2:11: error: unknown key \"sourceAdresses\" in network"
            ),
            ("network: lte", "fleet.yaml:2:10: error: network is not a mapping"),
        ] {
            do {
                _ = try FleetFile.parse(
                    yaml: "name: bad\n\(network)\ngroups: [{name: a, count: 1, route: r.csv}]\n", file: "fleet.yaml")
                Issue.record("\(network) was read")
            } catch {
                #expect(error.description.contains(expected), "\(error.description)")
                #expect(error.problems.count == 1)
            }
        }
    }

    @Test(
        "network.http2 and network.idleCloseSeconds are read with their defaults; a bad one is reported with its range",
        arguments: [
            ("{http2: off, idleCloseSeconds: 0}", "", FleetFile.HTTP2Choice.off, 0),
            ("{sourceAddresses: 127.0.0.2}", "", .auto, 300),
            (
                "{http2: yes}", "fleet.yaml:2:18: error: \"yes\" is not an HTTP/2 choice; expected `auto` or `off`",
                .auto, 300
            ),
            (
                "{idleCloseSeconds: 3601}",
                "fleet.yaml:2:29: error: `network.idleCloseSeconds` \"3601\" is out of range; "
                    + "expected a whole number from 0 to 3600 s", .auto, 300
            ),
        ])
    func connections(network: String, problem: String, http2: FleetFile.HTTP2Choice, idle: Int) throws {
        let yaml = "name: n\nnetwork: \(network)\ngroups: [{name: a, count: 1, route: r.csv}]\n"
        do {
            let fleet = try FleetFile.parse(yaml: yaml, file: "fleet.yaml")
            #expect(problem.isEmpty)
            #expect(fleet.network.http2 == http2)
            #expect(fleet.network.idleCloseSeconds == idle)
        } catch {
            #expect(!problem.isEmpty && error.description.contains(problem), "\(error.description)")
        }
    }
}
