import FleetDescription
import FleetEngine
import FleetRuntime
import FleetTestSupport
import Foundation
import IngestReceiver
import Testing

/// `network.sourceAddresses` / `--source-addresses` on the real driver, against the reference
/// receiver over loopback.
@Suite("Source addresses", .serialized)
struct SourceAddressTests {
    static func yaml(devices: Int, network: String) -> String {
        Workspace.yaml(devices: devices).replacingOccurrences(of: "groups:\n", with: network + "\ngroups:\n")
    }

    @Test(
        """
        40 devices over 10 source addresses: the receiver sees 10 client addresses, each with 4 \
        installs, every install from one address, and stores every fix the fleet acknowledged
        """)
    func spread() async throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let server = try workspace.receiver()
        defer { server.stop() }
        let yaml = Self.yaml(devices: 40, network: "network: {sourceAddresses: 127.0.0.2-127.0.0.11}")
        let runtime = try await workspace.runtime(yaml, ingest: server.url, virtualMinutes: 10, timing: .deterministic)
        let stats = server.stats()
        #expect(stats.sourceAddresses.keys.sorted() == (2...11).map { "127.0.0.\($0)" }.sorted())
        #expect(stats.sourceAddresses.values.allSatisfy { $0.installs == 4 }, "\(stats.sourceAddresses)")
        #expect(stats.installsFromSeveralAddresses == 0)
        #expect(stats.devices == 40)
        let metrics = runtime.metrics
        #expect(stats.fixesStored == metrics.fixes.ledger.acknowledged && stats.fixesStored > 0)
        #expect(metrics.fixes.unaccounted == 0)
        // The admin API's devices say which address each left from: the fleet's order, in turn.
        let devices = runtime.snapshot.devices.sorted { $0.id < $1.id }
        #expect(devices.prefix(3).map(\.sourceAddress) == ["127.0.0.2", "127.0.0.3", "127.0.0.4"])
        #expect(devices[10].sourceAddress == "127.0.0.2")
    }

    @Test(
        """
        a start refuses a source address this machine does not have, or one with no route to the \
        server, naming it, before anything runs
        """,
        arguments: [
            ("127.0.0.2,10.9.9.9", "http://127.0.0.1:9/ingest", "10.9.9.9 cannot be bound"),
            ("127.0.0.2", "http://198.51.100.7:8081/ingest", "no route from 127.0.0.2 to 198.51.100.7:8081"),
        ])
    func refused(addresses: String, ingest: String, message: String) throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        var options = RunOptions(dataDirectory: workspace.data, ingest: ingest, routeFolder: workspace.folder.path)
        options.sourceAddresses = try SourceAddresses(reading: addresses)
        do {
            _ = try FleetRuntime(fleet: try workspace.fleet(Workspace.yaml(devices: 2)), options: options)
            Issue.record("the run started")
        } catch {
            #expect("\(error)".contains("source addresses: " + message), "\(error)")
        }
        #expect(!FileManager.default.fileExists(atPath: workspace.data + "/devices.json"))
    }
}
