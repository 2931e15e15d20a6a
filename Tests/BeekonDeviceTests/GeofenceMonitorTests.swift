import Testing

@testable import BeekonDevice

@Suite("Geofences")
struct GeofenceMonitorTests {
    static let home = Geofence(id: "home", latitude: 52.52, longitude: 13.405, radiusMeters: 100)
    static let metersPerDegree = Geodesy.earthRadiusMeters * .pi / 180

    @Test(
        "each validation reason refuses the whole request",
        arguments: [
            (Geofence(id: "", latitude: 0, longitude: 0, radiusMeters: 1), GeofenceValidationError.Reason.emptyID),
            (Geofence(id: String(repeating: "x", count: 101), latitude: 0, longitude: 0, radiusMeters: 1), .idTooLong),
            (Geofence(id: "bk:internal", latitude: 0, longitude: 0, radiusMeters: 1), .reservedPrefix),
            (Geofence(id: "a", latitude: 90.0001, longitude: 0, radiusMeters: 1), .latitudeOutOfRange),
            (Geofence(id: "a", latitude: .nan, longitude: 0, radiusMeters: 1), .latitudeOutOfRange),
            (Geofence(id: "a", latitude: 0, longitude: -180.5, radiusMeters: 1), .longitudeOutOfRange),
            (Geofence(id: "a", latitude: 0, longitude: 0, radiusMeters: 0), .radiusNotPositive),
            (Geofence(id: "a", latitude: 0, longitude: 0, radiusMeters: -5), .radiusNotPositive),
        ])
    func validation(bad: Geofence, reason: GeofenceValidationError.Reason) {
        var monitor = GeofenceMonitor()
        #expect(throws: GeofenceValidationError(index: 1, id: bad.id, reason: reason)) {
            try monitor.add([Self.home, bad])
        }
        #expect(monitor.geofences.isEmpty)
    }

    @Test("the limits themselves are valid: 100-character id, ±90, ±180")
    func limits() throws {
        var monitor = GeofenceMonitor()
        try monitor.add([
            Geofence(id: String(repeating: "x", count: 100), latitude: 90, longitude: 180, radiusMeters: 0.1),
            Geofence(id: "b", latitude: -90, longitude: -180, radiusMeters: 1e6),
        ])
        #expect(monitor.geofences.count == 2)
    }

    @Test("re-adding an id replaces it in place; removing unknown ids is harmless")
    func replace() throws {
        var monitor = GeofenceMonitor()
        try monitor.add([Self.home, Geofence(id: "work", latitude: 1, longitude: 1, radiusMeters: 5)])
        try monitor.add([Geofence(id: "home", latitude: 2, longitude: 2, radiusMeters: 7)])
        #expect(monitor.geofences.map(\.id) == ["home", "work"])
        #expect(monitor.geofences[0].radiusMeters == 7)
        monitor.remove(ids: ["nope", "work"])
        #expect(monitor.geofences.map(\.id) == ["home"])
    }

    /// The positions metres south of home (negative: north), 10 s apart from t = 0; the
    /// crossings as (type, the crossing's time in seconds).
    static func crossings(_ south: [Double], stepSeconds: Int64 = 10) throws -> [String] {
        var monitor = GeofenceMonitor()
        try monitor.add([home])
        var seen: [String] = []
        for (index, meters) in south.enumerated() {
            let latitude = home.latitude - meters / metersPerDegree
            let time = Int64(index) * stepSeconds * 1000
            seen += monitor.positionChanged(latitude: latitude, longitude: home.longitude, timestamp: time)
                .map { "\($0.type.rawValue)@\($0.timestamp / 1000)" }
        }
        return seen
    }

    @Test(
        "crossings (100 m radius: a 10 m cushion, 20 s on the new side; the event has the first time there)",
        arguments: [
            // Walking through: the first position sets the side silently, then enter and exit.
            ([-300, -200, -50, 0, 50, 120, 200, 300], ["enter@20", "exit@50"]),
            // Starting inside: no event until the device leaves and stays out.
            ([0, 0, 300, 300, 300], ["exit@20"]),
            // Noise at the edge: positions within the 10 m band either side are no evidence.
            ([-300, 95, 105, 92, 108, 95, 105, 99, 101], []),
            // A 10 s excursion across the edge and back is no crossing; a 20 s one is.
            ([-300, 0, -300, -300, 0, 0, 0], ["enter@40"]),
            // An outlier outside while inside does not exit.
            ([0, 0, 800, 0, 0, 0], []),
        ] as [([Double], [String])])
    func crossingsTable(south: [Double], expected: [String]) throws {
        #expect(try Self.crossings(south) == expected)
    }

    @Test("a slow provider (30 s between fixes) confirms a crossing with its second fix on the new side")
    func slowProvider() throws {
        #expect(try Self.crossings([-300, 0, 0, 300, 300], stepSeconds: 30) == ["enter@30", "exit@90"])
    }

    @Test(
        "the cushion is a tenth of the radius, 5–50 m, never more than half the radius",
        arguments: [
            (100.0, 10.0), (20, 5), (1000, 50), (4, 2), (1, 0.5),
        ])
    func cushion(radius: Double, cushion: Double) {
        #expect(GeofenceMonitor.cushionMeters(radius: radius) == cushion)
    }
}
