import BeekonDevice
import Foundation
import Testing

@testable import FleetAdmin
@testable import FleetEngine
@testable import FleetReport

/// How a device in `storeError`, and store failures by cause, read in the admin API and `/metrics`.
@Suite("Admin API: store errors")
struct StoreErrorJSONTests {
    static func device(_ id: String, storeError: DeviceStoreError?) -> DeviceSnapshot {
        DeviceSnapshot(
            id: id, group: "walkers", platform: .ios, model: "", osVersion: "18.7", sdkVersion: "0.1.1", installID: "",
            state: storeError == nil ? .sdk(.tracking) : .storeError,
            alive: true, spawned: true, deleted: false, permissionGranted: true, locationServicesOn: true, online: true,
            pending: 0, lastOutcome: nil, lastUploadAt: nil, latitude: nil, longitude: nil, config: nil,
            sync: SyncView(phase: .idle, consecutiveFailures: 0, nextAttemptAt: nil),
            auth: AuthView(state: .none, validUntil: nil, lastRefreshOutcome: nil, breakerOpenUntil: nil),
            stateHistory: [], uploads: [], streams: [], storeError: storeError)
    }

    static var snapshot: FleetSnapshot {
        var snapshot = FleetSnapshot()
        snapshot.devices = [
            device(
                "walkers-0001",
                storeError: DeviceStoreError(
                    cause: "full", message: "database or disk is full", since: 1_781_510_400_000)),
            device("walkers-0002", storeError: nil),
        ]
        snapshot.metrics.devicesByState = [.storeError: 1, .sdk(.tracking): 1]
        snapshot.metrics.storeErrorsByCause = ["full": 3, "tooManyOpenFiles": 1]
        snapshot.metrics.fixesLostByCause = ["full": 40]
        return snapshot
    }

    static func object(_ bytes: [UInt8]) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    @Test("a device's storeError holds the cause, SQLite's message and since when; null while its store works")
    func deviceStoreError() throws {
        let failing = try Self.object(APIJSON.bytes(DeviceDetailBody(Self.snapshot.devices[0])))
        #expect(failing["state"] as? String == "storeError")
        let problem = try #require(failing["storeError"] as? [String: Any])
        #expect(problem["cause"] as? String == "full")
        #expect(problem["message"] as? String == "database or disk is full")
        #expect(problem["since"] as? String == "2026-06-15T08:00:00.000Z")
        let working = try Self.object(APIJSON.bytes(DeviceDetailBody(Self.snapshot.devices[1])))
        #expect(working["storeError"] is NSNull)
    }

    @Test("the fleet summary counts store errors and lost rows by cause")
    func fleetCounts() throws {
        let store = try #require(
            try Self.object(APIJSON.bytes(FleetSummaryBody(Self.snapshot)))["store"] as? [String: Any])
        #expect(store["errors"] as? [String: Int] == ["full": 3, "tooManyOpenFiles": 1])
        #expect(store["fixesLost"] as? [String: Int] == ["full": 40])
        #expect(store["geofenceEventsLost"] as? [String: Int] == [:])
    }

    @Test("/metrics has store errors and lost fixes by cause, and storeError devices in the by-state gauge")
    func prometheus() {
        let text = PrometheusText.render(Self.snapshot)
        #expect(text.contains("beekon_fleet_devices{state=\"storeError\"} 1\n"))
        #expect(text.contains("beekon_fleet_store_errors_total{cause=\"full\"} 3\n"))
        #expect(text.contains("beekon_fleet_store_errors_total{cause=\"tooManyOpenFiles\"} 1\n"))
        #expect(text.contains("beekon_fleet_fixes_lost_total{cause=\"full\"} 40\n"))
        #expect(text.contains("# TYPE beekon_fleet_geofence_events_lost_total counter\n"))
    }
}
