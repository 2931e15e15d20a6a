import Foundation
import Testing

/// Hostile numbers in every numeric field of the admin API's bodies and query strings, against
/// the real server and the simulated fleet: each refused with 400 naming the field, and afterwards
/// the fleet has the same warp, devices and virtual time, and still runs.
@Suite("Admin API numbers", .serialized)
struct AdminNumberTests {
    /// Values as JSON: bare tokens that are not JSON, numbers no field takes, and strings.
    static let bodyValues = [
        "NaN", "Infinity", "-Infinity", "nan", "inf", "1e300", "5e-324", "-1", "0", "9223372036854775808", "1e16",
        "\"NaN\"", "\"inf\"", "\"x\"", "\"1\"",
    ]

    /// Each body field, `V` where the value goes, with the values its range takes (not sent: they
    /// would act on the fleet).
    static let bodyFields: [(method: String, path: String, body: String, field: String, takes: Set<String>)] = [
        ("PATCH", "/api/v1/fleet", #"{"warp": V}"#, "warp", []),
        ("POST", "/api/v1/devices", #"{"group": "walkers", "count": V}"#, "count", []),
        ("POST", "/api/v1/devices", #"{"group": "walkers", "count": 1, "ratePerSecond": V}"#, "ratePerSecond", []),
        ("POST", "/api/v1/devices", #"{"spec": {"name": "extra", "count": V, "route": "walk.csv"}}"#, "spec.count", []),
        (
            "POST", "/api/v1/devices",
            #"{"spec": {"name": "extra", "count": 1, "route": "walk.csv", "speedFactor": V}}"#,
            "spec.speedFactor", []
        ),
        (
            "POST", "/api/v1/fleet/actions", #"{"action": "sync", "selector": {"fraction": V}}"#, "selector.fraction",
            ["5e-324", "0"]
        ),
        (
            "POST", "/api/v1/fleet/actions", #"{"action": "sync", "selector": {"fraction": 0.5, "seed": V}}"#,
            "selector.seed", ["0"]
        ),
        (
            "POST", "/api/v1/fleet/actions",
            #"{"action": "kill", "selector": {"all": true}, "params": {"relaunchAfterSeconds": V}}"#,
            "params.relaunchAfterSeconds", ["5e-324", "0"]
        ),
        (
            "POST", "/api/v1/fleet/actions", #"{"action": "latency", "selector": {"all": true}, "params": {"ms": V}}"#,
            "params.ms", ["0"]
        ),
        (
            "POST", "/api/v1/fleet/actions",
            #"{"action": "timeouts", "selector": {"all": true}, "params": {"fraction": V}}"#,
            "params.fraction", ["5e-324", "0"]
        ),
        (
            "POST", "/api/v1/fleet/actions",
            #"{"action": "configure", "selector": {"all": true}, "params": {"config": {"stationaryRadiusMeters": V}}}"#,
            "params.stationaryRadiusMeters", []
        ),
        (
            "POST", "/api/v1/fleet/actions",
            #"{"action": "networkProfile", "selector": {"all": true}, "params": {"uplinkKbps": V}}"#,
            "params.uplinkKbps", []
        ),
        (
            "POST", "/api/v1/fleet/actions",
            #"{"action": "networkProfile", "selector": {"all": true}, "params": {"latency": {"median": V}}}"#,
            "params.latency.median", ["0"]
        ),
        (
            "POST", "/api/v1/fleet/actions",
            #"{"action": "networkProfile", "selector": {"all": true}, "params": {"loss": V}}"#,
            "params.loss", ["5e-324", "0"]
        ),
    ]

    /// Query values (percent-encoded where needed).
    static let queryValues = ["NaN", "inf", "-inf", "1e300", "5e-324", "-1", "0", "9223372036854775808", "1e16", "x"]

    /// Each query argument, `V` where the value goes (`{id}` is a device), and the values it takes.
    static let queryFields: [(path: String, field: String, takes: Set<String>)] = [
        ("/api/v1/devices?limit=V", "limit", []),
        ("/api/v1/devices/{id}/locations?limit=V", "limit", []),
        ("/api/v1/devices/{id}/locations?from=V", "from", ["0"]),
        ("/api/v1/devices/{id}/locations?to=V", "to", ["0"]),
    ]

    /// The fleet's warp and device count, to show nothing changed.
    static func fleetState(_ harness: AdminHarness) async -> (warp: Double?, devices: Int?, virtualMillis: Int?) {
        let fleet = await harness.call("GET", "/api/v1/fleet").object
        return (fleet["warp"] as? Double, fleet["devices"] as? Int, fleet["virtualTimeMillis"] as? Int)
    }

    @Test(
        """
        every numeric body field refuses NaN, infinities, 1e300, \
        5e-324, -1, 0, 2^63 and strings by name, and nothing changes
        """
    )
    func hostileBodies() async throws {
        let harness = try AdminHarness()
        let before = await Self.fleetState(harness)
        for entry in Self.bodyFields {
            for value in Self.bodyValues where !entry.takes.contains(value) {
                let body = entry.body.replacingOccurrences(of: "V", with: value)
                let answer = await harness.call(entry.method, entry.path, body: body)
                #expect(answer.status == 400, "\(body): \(answer.text)")
                let isJSON = !["NaN", "Infinity", "-Infinity", "nan", "inf"].contains(value)
                if isJSON {
                    #expect(answer.errorField == entry.field, "\(body): \(answer.text)")
                    let message = (answer.object["error"] as? [String: Any])?["message"] as? String ?? ""
                    #expect(message.contains(value.replacingOccurrences(of: "\"", with: "")), "\(body): \(answer.text)")
                    #expect(message.contains("expected") || message.contains("must be"), "\(body): \(answer.text)")
                } else {
                    #expect(
                        answer.errorCode == "bad_request" && answer.text.contains("not valid JSON"),
                        "\(body): \(answer.text)")
                }
            }
        }
        let after = await Self.fleetState(harness)
        #expect(
            after.warp == before.warp && after.devices == before.devices && after.virtualMillis == before.virtualMillis)
        #expect(harness.simulated.snapshot.actions.isEmpty, "a refused action ran")
        // The fleet still runs: a second of virtual time is a second.
        harness.simulated.advance(byMillis: 1_000)
        #expect(await Self.fleetState(harness).virtualMillis == before.virtualMillis.map { $0 + 1_000 })
    }

    @Test("every numeric query argument refuses what its range refuses, by name")
    func hostileQueries() async throws {
        let harness = try AdminHarness()
        let device = "walkers-0001"
        let before = await Self.fleetState(harness)
        for entry in Self.queryFields {
            for value in Self.queryValues where !entry.takes.contains(value) {
                let path = entry.path.replacingOccurrences(of: "{id}", with: device).replacingOccurrences(
                    of: "=V", with: "=\(value)")
                let answer = await harness.call("GET", path)
                #expect(answer.status == 400 && answer.errorField == entry.field, "\(path): \(answer.text)")
                let message = (answer.object["error"] as? [String: Any])?["message"] as? String ?? ""
                #expect(message.contains("\"\(value)\"") && message.contains("expected"), "\(path): \(answer.text)")
            }
        }
        for cursor in ["1e3", "-1", "1234567890", "x", "%2B1", "1.0", "bzo1"] {
            let answer = await harness.call("GET", "/api/v1/devices?cursor=\(cursor)")
            #expect(answer.status == 400 && answer.errorField == "cursor", "\(cursor): \(answer.text)")
        }
        // Any 1 to 9 digits are a place in the list (past its end: an empty page).
        for cursor in ["0", "007", "999999999"] {
            let answer = await harness.call("GET", "/api/v1/devices?cursor=\(cursor)")
            #expect(answer.status == 200, "\(cursor): \(answer.text)")
        }
        let after = await Self.fleetState(harness)
        #expect(after.warp == before.warp && after.devices == before.devices)
    }

    @Test("PATCH /api/v1/fleet takes the ends of the warp range exactly")
    func warpBounds() async throws {
        let harness = try AdminHarness()
        for (warp, status, set) in [
            ("0.01", 200, 0.01), ("10000", 200, 10_000), ("0.0099", 400, 10_000), ("10000.0001", 400, 10_000),
            ("1e4", 200, 10_000),
        ] {
            let answer = await harness.call("PATCH", "/api/v1/fleet", body: #"{"warp": \#(warp)}"#)
            #expect(answer.status == status, "\(warp): \(answer.text)")
            #expect(await Self.fleetState(harness).warp == set, "\(warp)")
        }
    }
}
