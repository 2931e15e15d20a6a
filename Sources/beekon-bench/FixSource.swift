import BeekonDevice

/// A realistic stream of fixes for benchmarks: a walk with GPS noise, one fix per second.
struct FixSource {
    private var rng: SplitMix64
    private var ids = UUIDv7Generator()
    private var latitude = 52.520_008
    private var longitude = 13.404_954
    private(set) var now: Int64 = 1_781_526_896_789
    let sessionID: String

    init(seed: UInt64) {
        rng = SplitMix64(seed: seed)
        var sessionIDs = UUIDv7Generator()
        sessionID = sessionIDs.next(atUnixMillis: now, using: &rng).text
    }

    mutating func nextID() -> UUIDv7 {
        ids.next(atUnixMillis: now, using: &rng)
    }

    /// A batch of the next `count` fixes as the sync engine POSTs it, from one Android install.
    mutating func payload(fixes count: Int) -> UploadPayload {
        UploadPayload(
            batchID: nextID(), sessionID: sessionID, sentAt: now,
            device: DeviceIdentity(installID: nextID().text, platform: .android, sdkVersion: "0.1.1", model: "Pixel 8"),
            extras: ["user_id": "courier-0042", "fleet": "bench"],
            locations: (0..<count).map { _ in next() })
    }

    mutating func next() -> Location {
        now += 1000
        latitude += Double.random(in: -0.000_02...0.000_02, using: &rng)
        longitude += Double.random(in: -0.000_02...0.000_03, using: &rng)
        return Location(
            id: nextID(), latitude: latitude, longitude: longitude, timestamp: now,
            accuracy: Double.random(in: 3...12, using: &rng), speed: Double.random(in: 1.2...1.6, using: &rng),
            bearing: Double.random(in: 0..<360, using: &rng), altitude: 34 + Double.random(in: -2...2, using: &rng),
            trigger: .interval, motion: .moving)!
    }
}
