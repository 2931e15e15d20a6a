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

    @Test("a path across the circle gives enter then exit, and no event for the first position")
    func crossing() throws {
        var monitor = GeofenceMonitor()
        try monitor.add([Self.home])
        var events: [GeofenceEventType] = []
        for metersSouth in stride(from: -300.0, through: 300, by: 50) {
            let latitude = Self.home.latitude + metersSouth / Self.metersPerDegree
            events += monitor.positionChanged(latitude: latitude, longitude: Self.home.longitude).map(\.type)
        }
        #expect(events == [.enter, .exit])
    }

    @Test("starting inside gives no event until the device leaves")
    func startInside() throws {
        var monitor = GeofenceMonitor()
        try monitor.add([Self.home])
        #expect(monitor.positionChanged(latitude: Self.home.latitude, longitude: Self.home.longitude).isEmpty)
        #expect(
            monitor.positionChanged(latitude: Self.home.latitude + 0.01, longitude: Self.home.longitude).map(\.type)
                == [.exit])
    }
}
