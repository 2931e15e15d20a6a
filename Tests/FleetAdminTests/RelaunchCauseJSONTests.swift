import BeekonDevice
import Foundation
import Testing

@testable import FleetAdmin
@testable import FleetEngine
@testable import FleetReport

/// How a device's state history reads in the admin API: every change has `cause`, the reason a
/// dead app came back on the first state it entered, null elsewhere.
@Suite("Admin API: relaunch causes")
struct RelaunchCauseJSONTests {
    @Test(
        "a relaunched device's history names the cause on the state it came back in, null on the others",
        arguments: RelaunchCause.allCases)
    func causeInHistory(cause: RelaunchCause) throws {
        var device = StoreErrorJSONTests.device("walkers-0001", storeError: nil)
        device.stateHistory = [
            StateChange(at: 1_781_510_400_000, state: .sdk(.tracking)),
            StateChange(at: 1_781_510_460_000, state: .dead),
            StateChange(at: 1_781_510_520_000, state: .sdk(.tracking), cause: cause),
        ]
        let history = try #require(
            try StoreErrorJSONTests.object(APIJSON.bytes(DeviceDetailBody(device)))["stateHistory"] as? [[String: Any]])
        #expect(history.map { $0["state"] as? String } == ["tracking", "dead", "tracking"])
        #expect(history[2]["at"] as? String == "2026-06-15T08:02:00.000Z")
        #expect(history[2]["cause"] as? String == cause.rawValue)
        #expect(history[0]["cause"] is NSNull && history[1]["cause"] is NSNull)
    }
}
