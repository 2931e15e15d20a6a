import BeekonDevice
import FleetTestSupport
import Testing

@testable import FleetEngine
@testable import FleetRuntime

/// The SDK's `syncStatus` and `authChanges` streams reach the fleet: each device keeps its recent
/// values, and the fleet numbers the notable ones for the live events.
@Suite("SDK streams in the fleet")
struct StreamRecordTests {
    @Test("a hung upload's retry is on the device's syncStatus stream and in the fleet's notable values, numbered")
    func retryReachesStreams() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        var answered: Set<String> = []
        var fleet = try SimulatedFleetTests.fleet(workspace) { request in
            answered.insert(request.device).inserted ? .hang : .ok
        }
        fleet.advance(byMillis: 4 * 60_000)
        let notable = fleet.engine.publication.streams.elements
        #expect(notable.map(\.number) == [1, 2, 3], "one retry per device: \(notable)")
        for slot in fleet.engine.slots {
            let sent = try #require(SimulatedFleetTests.uploads(fleet)[slot.id]?.first)
            // Heard as a timeout 30 s after the send; retried 120 s after that (60 s × 2¹).
            let retry = StreamRecord(
                at: sent.sentAt + 30_000, device: slot.id,
                value: .syncStatus(.retrying(attempt: 1, nextAt: sent.sentAt + 150_000)))
            #expect(notable.contains { $0.at == retry.at && $0.device == retry.device && $0.value == retry.value })
            // The device's own history keeps every value (the last 50): each upload goes in
            // flight, succeeds, and the engine idles.
            let recent = slot.recent.streams.elements.suffix(3).map(\.value)
            #expect(
                recent == [.syncStatus(.inFlight), .syncStatus(.succeeded(count: 1)), .syncStatus(.idle)], "\(recent)")
            let id = slot.id
            #expect(slot.recent.streams.elements.allSatisfy { $0.device == id })
        }
    }

    @Test(
        "which stream values are notable: sync retries and failures, and every auth change",
        arguments: [
            (StreamRecord.Value.syncStatus(.idle), false), (.syncStatus(.inFlight), false),
            (.syncStatus(.succeeded(count: 3)), false), (.syncStatus(.retrying(attempt: 1, nextAt: 0)), true),
            (.syncStatus(.failed(.auth)), true), (.authChange(.seeded(expiresAt: nil)), true),
            (.authChange(.refreshed(expiresAt: 1)), true), (.authChange(.deadCredentials), true),
            (.authChange(.breakerOpened(until: 5)), true),
        ])
    func notable(value: StreamRecord.Value, expected: Bool) {
        #expect(StreamRecord(at: 0, device: "d", value: value).isNotable == expected)
    }
}
