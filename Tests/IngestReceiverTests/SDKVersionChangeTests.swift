import BeekonDevice
import BeekonNet
import FleetTestSupport
import Foundation
import Testing

@testable import IngestReceiver

/// `sdk_version_changes`: an install whose stored uploads report another SDK version than
/// before (an app upgraded mid-run), in `/stats` and `/metrics`.
@Suite("Receiver: SDK version changes per install")
struct SDKVersionChangeTests {
    @Test(
        "each install's change of sdk_version counts once per change, a retried batch included",
        arguments: [
            (["0.1.1", "0.1.1"], 0),
            (["0.1.1", "0.2.0"], 1),
            (["0.1.1", "0.2.0", "0.2.0", "0.3.0"], 2),
            (["0.2.0", "0.1.1", "0.2.0"], 2),
        ])
    func counts(versions: [String], changes: Int) async throws {
        let harness = try ReceiverHarness()
        let other = harness.newID()
        let retried = harness.payload(fixes: 2)
        for (index, version) in versions.enumerated() {
            // The first upload's batch goes again with each later version, as a retry across an
            // upgrade does; another install alongside never changes.
            let payload =
                index == 0
                ? harness.payload(fixes: 2, batchID: retried.batchID, sdkVersion: version)
                : harness.payload(fixes: 0, reuse: retried.locationIDs, batchID: retried.batchID, sdkVersion: version)
            #expect(try await harness.upload(payload.json).status == 200)
            #expect(try await harness.upload(harness.payload(device: other, fixes: 1).json).status == 200)
        }
        #expect(harness.receiver.stats().sdkVersionChanges == changes)
        #expect(try await harness.statsJSON()["sdk_version_changes"] as? Int == changes)
        #expect(
            harness.receiver.stats().prometheusText().contains(
                "\nbeekon_receiver_sdk_version_changes_total \(changes)\n"))
        // The devices table keeps the latest version.
        #expect(
            try harness.count("SELECT count(*) FROM devices WHERE sdk_version = '\(versions.last!)'") >= 1)
    }
}
