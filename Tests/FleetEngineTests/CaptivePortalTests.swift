import BeekonDevice
import BeekonNet
import FleetTestSupport
import Foundation
import Testing

@testable import FleetDescription
@testable import FleetEngine
@testable import FleetRuntime

/// The `captivePortal` fault on the simulated driver: what the SDK makes of a portal's answers
/// (seed 05's status table), and what the fleet counts of it.
@Suite("Captive portals on the simulated driver")
struct CaptivePortalTests {
    static func yaml(answer: String) -> String {
        NetworkProfileRunTests.yaml(
            network: nil, devices: 10,
            faults: """
                faults:
                  - {at: 10m, for: 10m, select: {group: phones}, action: captivePortal, params: {answer: \(answer)}}
                """)
    }

    @Test(
        """
        behind a portal answering 200 with its login page, a device deletes each batch as the server's \
        2xx would have it deleted: nothing reaches the server for 10 minutes, those fixes are counted \
        portal-acknowledged (part of acknowledged), and the uploads captive-portal, a fault's
        """)
    func html200() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let ingest = SimulatedIngest()
        var fleet = try workspace.simulated(Self.yaml(answer: "html200"), ingest: ingest)
        fleet.advance(byMillis: 30 * Workspace.minute)
        fleet.finish()
        let metrics = fleet.engine.snapshot()
        let start = Workspace.start + 10 * Workspace.minute
        let phoneIDs = Set(fleet.engine.slots.filter { $0.group == 0 }.map(\.id))
        // Nothing of the phones reached the server while the portal stood (sent from 10 to 20 min).
        let portalTime = start..<start + 10 * Workspace.minute
        #expect(!ingest.uploads.contains { phoneIDs.contains($0.device) && portalTime.contains($0.request.sentAt) })
        let portal = metrics.fixes.portalAcknowledgements
        #expect(portal.batches > 50 && portal.fixes >= portal.batches)
        #expect(metrics.fixesByGroup[0].portalAcknowledgements == portal)
        #expect(metrics.fixesByGroup[1].portalAcknowledgements.batches == 0)
        #expect(metrics.batchesByOutcome[.captivePortal] == portal.batches)
        #expect(TransferOutcome.captivePortal.party == .fault)
        // Acknowledged counts them (the stores deleted them); the server has the rest, none twice.
        #expect(Set(ingest.acceptedLocationIDs).count + portal.fixes == metrics.fixes.ledger.acknowledged)
        #expect(metrics.fixes.ledger.lost == 0 && metrics.fixes.unaccounted == 0)
    }

    @Test(
        """
        behind a portal answering 302, a device keeps its rows and backs off (3xx is permanent to \
        the SDK): nothing is deleted on the portal's word, and once it is gone every fix reaches the server
        """)
    func redirect302() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let ingest = SimulatedIngest()
        var fleet = try workspace.simulated(Self.yaml(answer: "redirect302"), ingest: ingest)
        fleet.advance(byMillis: 120 * Workspace.minute)
        let metrics = fleet.engine.snapshot()
        #expect(metrics.fixes.portalAcknowledgements.batches == 0)
        #expect((metrics.batchesByOutcome[.captivePortal] ?? 0) > 0)
        NetworkProfileRunTests.expectNoFixLost(&fleet, ingest)
        let after = fleet.engine.snapshot()
        #expect(Set(ingest.acceptedLocationIDs).count == after.fixes.ledger.acknowledged)
    }

    @Test("a portal answers with its login page (200, HTML) or a redirect to it (302, Location)")
    func portalOutcomes() {
        guard case .response(let page, let body) = FleetLoop.portalOutcome(.html200) else {
            Issue.record("no response")
            return
        }
        #expect(page.status.code == 200 && page.headerFields[.contentType]?.hasPrefix("text/html") == true)
        #expect(!body.isEmpty)
        guard case .response(let redirect, _) = FleetLoop.portalOutcome(.redirect302) else {
            Issue.record("no response")
            return
        }
        #expect(redirect.status.code == 302 && redirect.headerFields[.location] != nil)
    }
}
