import Foundation
import Testing

/// `flapping` through the REST API, over real HTTP in front of the simulated fleet: taken with
/// the fleet file's keys, listed as a fault its own opposite ends, refused by field.
@Suite("Admin server: flapping", .serialized)
struct FlappingAPITests {
    @Test("a flapping on every device begins a fault that DELETE ends, and the network is up after it")
    func applyAndEnd() async throws {
        let harness = try AdminHarness()
        let applied = await harness.call(
            "POST", "/api/v1/fleet/actions",
            body:
                #"{"action": "flapping", "selector": {"all": true}, "#
                + #""params": {"meanOnline": 30000, "meanOffline": 30000, "handover": 0}}"#)
        #expect(applied.status == 202 && applied.object["applied"] as? Int == 4, "\(applied.text)")
        harness.simulated.advance(byMillis: 10 * 60_000)
        #expect(harness.simulated.snapshot.metrics.networkDrops > 4)
        let metrics = await harness.call("GET", "/metrics").text
        #expect(
            metrics.contains("beekon_fleet_network_drops_total \(harness.simulated.snapshot.metrics.networkDrops)\n"))
        let faults = await harness.call("GET", "/api/v1/faults").object["faults"] as? [[String: Any]] ?? []
        let fault = try #require(faults.first { $0["action"] as? String == "flapping" })
        #expect(fault["endable"] as? Bool == true && fault["phase"] as? String == "active")
        let number = try #require(fault["fault"] as? Int)
        let ended = await harness.call("DELETE", "/api/v1/faults/\(number)")
        #expect(ended.status == 200, "\(ended.text)")
        let drops = harness.simulated.snapshot.metrics.networkDrops
        harness.simulated.advance(byMillis: 10 * 60_000)
        #expect(harness.simulated.snapshot.metrics.networkDrops == drops)
        let devices = await harness.call("GET", "/api/v1/devices").object["devices"] as? [[String: Any]] ?? []
        #expect(devices.count == 4 && devices.allSatisfy { $0["network"] as? String == "online" }, "\(devices)")
    }

    @Test(
        "a mean out of range or an unknown key is refused with 400 naming the field",
        arguments: [
            (#"{"meanOnline": 999}"#, "params.meanOnline"),
            (#"{"handover": 2}"#, "params.handover"),
            (#"{"meanUp": 1000}"#, "params.meanUp"),
        ])
    func refused(params: String, field: String) async throws {
        let harness = try AdminHarness()
        let answer = await harness.call(
            "POST", "/api/v1/fleet/actions",
            body: #"{"action": "flapping", "selector": {"all": true}, "params": \#(params)}"#)
        #expect(answer.status == 400 && answer.errorField == field, "\(answer.text)")
    }

    @Test(
        "a spawned group's spec takes flapping: as a fleet file does, and refuses a bad one by field",
        arguments: [
            (#"{}"#, 202, nil),
            (#"{"meanOnline": 60000, "handover": 1}"#, 202, nil),
            (#"{"meanOffline": 0}"#, 400, "spec.flapping.meanOffline"),
            (#"{"handover": -0.1}"#, 400, "spec.flapping.handover"),
        ] as [(String, Int, String?)])
    func spawnSpec(flapping: String, status: Int, field: String?) async throws {
        let harness = try AdminHarness()
        let answer = await harness.call(
            "POST", "/api/v1/devices",
            body: #"{"spec": {"name": "mobile", "count": 2, "route": "walk.csv", "flapping": \#(flapping)}}"#)
        #expect(answer.status == status, "\(answer.text)")
        if let field { #expect(answer.errorField == field, "\(answer.text)") }
    }
}

/// `oemKills` through the REST API: taken with the fleet file's keys, refused by field.
@Suite("Admin server: OEM kills", .serialized)
struct OEMKillsAPITests {
    @Test(
        "an oemKills out of range or with an unknown rate table is refused with 400 naming the field",
        arguments: [(#"{"perDay": 25}"#, "params.perDay"), (#"{"rates": "maker"}"#, "params.rates")])
    func refused(params: String, field: String) async throws {
        let harness = try AdminHarness()
        let answer = await harness.call(
            "POST", "/api/v1/fleet/actions",
            body: #"{"action": "oemKills", "selector": {"all": true}, "params": \#(params)}"#)
        #expect(answer.status == 400 && answer.errorField == field, "\(answer.text)")
    }

    @Test(
        "a spawned group's spec takes oemKills: as a fleet file does, and refuses a bad one by field",
        arguments: [
            (#""vendor""#, 202, nil), (#"{"perDay": 3}"#, 202, nil), (#""always""#, 400, "spec.oemKills"),
            (#"{"perDay": -1}"#, 400, "spec.oemKills.perDay"),
        ] as [(String, Int, String?)])
    func spawnSpec(oemKills: String, status: Int, field: String?) async throws {
        let harness = try AdminHarness()
        let answer = await harness.call(
            "POST", "/api/v1/devices",
            body: #"{"spec": {"name": "mobile", "count": 2, "route": "walk.csv", "oemKills": \#(oemKills)}}"#)
        #expect(answer.status == status, "\(answer.text)")
        if let field { #expect(answer.errorField == field, "\(answer.text)") }
    }
}

/// `doze` through the REST API: taken with the fleet file's keys, refused by field.
@Suite("Admin server: doze", .serialized)
struct DozeAPITests {
    @Test(
        "a doze out of range or with an unknown key is refused with 400 naming the field",
        arguments: [
            (#"{"after": 1000}"#, "params.after"), (#"{"window": 5}"#, "params.window"),
            (#"{"idle": 1}"#, "params.idle"),
        ])
    func refused(params: String, field: String) async throws {
        let harness = try AdminHarness()
        let answer = await harness.call(
            "POST", "/api/v1/fleet/actions",
            body: #"{"action": "doze", "selector": {"all": true}, "params": \#(params)}"#)
        #expect(answer.status == 400 && answer.errorField == field, "\(answer.text)")
    }

    @Test(
        "a spawned group's spec takes doze: as a fleet file does, and refuses a bad one by field",
        arguments: [
            (#"{}"#, 202, nil), (#"{"after": 600000, "window": 60000}"#, 202, nil),
            (#"{"after": 59999}"#, 400, "spec.doze.after"),
        ] as [(String, Int, String?)])
    func spawnSpec(doze: String, status: Int, field: String?) async throws {
        let harness = try AdminHarness()
        let answer = await harness.call(
            "POST", "/api/v1/devices",
            body: #"{"spec": {"name": "mobile", "count": 2, "route": "walk.csv", "doze": \#(doze)}}"#)
        #expect(answer.status == status, "\(answer.text)")
        if let field { #expect(answer.errorField == field, "\(answer.text)") }
    }
}

/// `standbyBucket` through the REST API, and each device's `world` in its detail.
@Suite("Admin server: App Standby buckets and a device's world", .serialized)
struct StandbyBucketAPITests {
    @Test(
        "a bucket Android does not have, or an unknown key, is refused with 400 naming the field",
        arguments: [(#"{"bucket": "idle"}"#, "params.bucket"), (#"{"group": true}"#, "params.group")])
    func refused(params: String, field: String) async throws {
        let harness = try AdminHarness()
        let answer = await harness.call(
            "POST", "/api/v1/fleet/actions",
            body: #"{"action": "standbyBucket", "selector": {"all": true}, "params": \#(params)}"#)
        #expect(answer.status == 400 && answer.errorField == field, "\(answer.text)")
    }

    @Test(
        "a spawned group's spec takes standbyBucket: as a fleet file does, and refuses a bad one by field",
        arguments: [
            (#""rare""#, 202, nil), (#""Rare""#, 400, "spec.standbyBucket"), (#"3"#, 400, "spec.standbyBucket"),
        ] as [(String, Int, String?)])
    func spawnSpec(bucket: String, status: Int, field: String?) async throws {
        let harness = try AdminHarness()
        let answer = await harness.call(
            "POST", "/api/v1/devices",
            body: #"{"spec": {"name": "mobile", "count": 2, "route": "walk.csv", "standbyBucket": \#(bucket)}}"#)
        #expect(answer.status == status, "\(answer.text)")
        if let field { #expect(answer.errorField == field, "\(answer.text)") }
    }

    @Test(
        """
        a device's detail shows its world as its group and the actions since made it: network, \
        flapping, Doze, bucket, battery manager, clock; a device none of them touch shows none
        """
    )
    func world() async throws {
        let harness = try AdminHarness()
        let spec =
            #"{"name": "mobile", "count": 1, "route": "walk.csv", "platform": "android", "model": "2311DRK48G", "#
            + #""network": "lte", "flapping": {"meanOnline": 600000}, "doze": {}, "standbyBucket": "rare", "#
            + #""oemKills": "vendor", "deviceClock": {"offset": "90s"}}"#
        let spawned = await harness.call("POST", "/api/v1/devices", body: #"{"spec": \#(spec)}"#)
        #expect(spawned.status == 202, "\(spawned.text)")
        harness.simulated.advance(byMillis: 60_000)
        let detail = await harness.call("GET", "/api/v1/devices/mobile-0001")
        let world = try #require(detail.object["world"] as? [String: Any], "\(detail.text)")
        let network = try #require(world["network"] as? [String: Any])
        #expect(network["uplinkKbps"] as? Double == 5000 && network["latencyMedianMillis"] as? Int == 60)
        let flapping = try #require(world["flapping"] as? [String: Any])
        #expect(flapping["meanOnlineMillis"] as? Int == 600_000 && flapping["meanOfflineMillis"] as? Int == 45_000)
        #expect(world["doze"] as? String == "active" && world["standbyBucket"] as? String == "rare")
        #expect(world["oemKillsPerDay"] as? Double == 3 && world["clockOffsetMillis"] as? Int == 90_000)
        #expect(world["captivePortal"] is NSNull && world["latencyMillis"] as? Int == 0)

        let moved = await harness.call(
            "POST", "/api/v1/fleet/actions",
            body: #"{"action": "standbyBucket", "selector": {"group": "mobile"}, "params": {"bucket": "frequent"}}"#)
        #expect(moved.status == 202, "\(moved.text)")
        let after = await harness.call("GET", "/api/v1/devices/mobile-0001").object["world"] as? [String: Any]
        #expect(after?["standbyBucket"] as? String == "frequent")

        let devices = await harness.call("GET", "/api/v1/devices").object["devices"] as? [[String: Any]] ?? []
        let plainID = try #require(devices.compactMap { $0["id"] as? String }.first { !$0.hasPrefix("mobile") })
        let plain = await harness.call("GET", "/api/v1/devices/\(plainID)").object["world"] as? [String: Any]
        #expect(plain?["network"] is NSNull && plain?["flapping"] is NSNull && plain?["doze"] is NSNull)
        #expect(plain?["standbyBucket"] as? String == "active" && plain?["clockOffsetMillis"] is NSNull)
        #expect(plain?["networkUp"] as? Bool == true && plain?["oemKillsPerDay"] as? Double == 0)
    }
}
