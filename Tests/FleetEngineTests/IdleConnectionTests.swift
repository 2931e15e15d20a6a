import BeekonNet
import FleetTestSupport
import Testing

@testable import FleetEngine
@testable import FleetRuntime

/// `network.idleCloseSeconds` on the simulated driver: whether a device's request opens a new
/// connection is decided on the virtual clock, so it is the same at any warp.
@Suite("Simulated driver: idle connections close on the virtual clock")
struct IdleConnectionTests {
    @Test(
        """
        a device's request after its connection sat idle longer than idleCloseSeconds asks for a \
        new one; within it, and for its first request, it does not
        """,
        arguments: [("", 0), ("network: {idleCloseSeconds: 0}", 1), ("network: {idleCloseSeconds: 3600}", 0)])
    func idleClose(network: String, freshAfterFirst: Int) throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        var fleet = try SimulatedFleetTests.fleet(workspace, warp: 60, faults: network) { _ in .ok }
        fleet.advance(byMillis: 5 * 60_000)
        let uploads = SimulatedFleetTests.uploads(fleet)
        #expect(uploads.count == 3)
        for (device, sent) in uploads {
            #expect(sent.count > 10, "\(device)")
            #expect(sent.first?.http.freshConnection == false, "\(device): a first request has no connection to drop")
            // Uploads come every few virtual seconds (syncThreshold 3, a fix a second).
            #expect(sent.dropFirst().allSatisfy { $0.http.freshConnection == (freshAfterFirst == 1) }, "\(device)")
        }
    }
}
