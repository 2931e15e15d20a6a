import BeekonDevice
import BeekonStore
import FleetTestSupport
import Testing

@Suite("DeviceStore: persisted device state")
struct DeviceStoreStateTests {
    @Test("each key reads back what was written, and nil before that")
    func roundTrip() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("store.db")
            let installID = try #require(UUIDv7("0190d4e2-7b1a-7c3e-9f10-2a4b6c8d0e1f"))
            let extras: StringMap = ["fleet": "berlin", "driver": "ana \"quoted\" / slash", "": "empty key"]
            do {
                let store = try DeviceStore(path: path)
                #expect(try store.readState(.installID) == nil)
                #expect(try store.readState(.trackingIntent) == nil)
                #expect(try store.readState(.sessionID) == nil)
                #expect(try store.readState(.extras) == nil)

                try store.writeState(.installID, installID)
                try store.writeState(.trackingIntent, false)
                try store.writeState(.sessionID, "")
                try store.writeState(.extras, extras)
            }
            // Read back through a new store object, from the file.
            let store = try DeviceStore(path: path)
            #expect(try store.readState(.installID) == installID)
            #expect(try store.readState(.trackingIntent) == false)
            #expect(try store.readState(.sessionID) == "")
            #expect(try store.readState(.extras) == extras)
        }
    }

    @Test("one update sets and clears several keys together")
    func multiKeyUpdate() throws {
        try withTemporaryDirectory { directory in
            let store = try DeviceStore(path: directory.file("store.db"))
            try store.writeState(.sessionID, "0190d4e2-7b1a-7c3e-9f10-2a4b6c8d0e1f")

            var update = DeviceStateUpdate()
            update.set(.trackingIntent, to: true)
            update.set(.extras, to: ["a": "1"])
            update.clear(.sessionID)
            update.set(.extras, to: ["a": "2"])
            try store.writeState(update)

            #expect(try store.readState(.trackingIntent) == true)
            #expect(try store.readState(.extras) == ["a": "2"], "the later change to a key wins")
            #expect(try store.readState(.sessionID) == nil)

            try store.writeState(.trackingIntent, nil)
            #expect(try store.readState(.trackingIntent) == nil)
        }
    }

    @Test("an update with a value that cannot be encoded writes none of its keys")
    func unencodableValueWritesNothing() throws {
        try withTemporaryDirectory { directory in
            let store = try DeviceStore(path: directory.file("store.db"))
            let ratio = DeviceStateKey<Double>("ratio")
            var update = DeviceStateUpdate()
            update.set(.trackingIntent, to: true)
            update.set(ratio, to: .nan)
            let error = try #require(throws: StoreError.self) {
                try store.writeState(update)
            }
            #expect(error.kind == .invalidValue)
            #expect(error.description.contains("ratio"))
            #expect(try store.readState(.trackingIntent) == nil)
        }
    }

    @Test("a stored value of another type reads as an invalidValue error naming the key")
    func wrongType() throws {
        try withTemporaryDirectory { directory in
            let store = try DeviceStore(path: directory.file("store.db"))
            try store.writeState(DeviceStateKey<String>("counter"), "not a number")
            let error = try #require(throws: StoreError.self) {
                _ = try store.readState(DeviceStateKey<Int>("counter"))
            }
            #expect(error.kind == .invalidValue)
            #expect(error.operation.contains("counter"))
        }
    }

    @Test("a device's persistState changes round-trip as one PersistedDeviceState, across a reopen")
    func deviceStateRoundTrip() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("store.db")
            let installID = try #require(UUIDv7("0190c1a4-aaaa-7bbb-8ccc-ddddeeeeffff"))
            let config = BeekonConfig(
                preset: .precision, whenStationary: .pauseWithCheckIns, detectActivity: true,
                sync: SyncConfig(
                    url: "https://ingest.test/l", headers: ["X-Api-Key": "k"], batchSize: 50,
                    auth: AuthConfig(refreshToken: "r", refreshURL: "https://auth.test/token")))
            let auth = PersistedAuth(
                tokens: TokenSet(accessToken: "a2", refreshToken: "r2", expiresAt: 1_781_530_000_000),
                seed: TokenSet(accessToken: nil, refreshToken: "r", expiresAt: nil))
            let expected = PersistedDeviceState(
                installID: installID, trackingIntent: true, sessionID: "0190d4e0-1234-7000-8000-aabbccddeeff",
                config: config, extras: ["z": "1", "a": "2"],
                geofences: [Geofence(id: "depot", latitude: 48.1, longitude: 11.5, radiusMeters: 150)], auth: auth,
                sdkVersion: "0.2.0")
            do {
                let store = try DeviceStore(path: path)
                #expect(try store.readDeviceState() == PersistedDeviceState())
                try store.writeState([
                    .installID(installID), .trackingIntent(true), .sessionID(expected.sessionID),
                    .config(config), .extras(expected.extras), .geofences(expected.geofences), .auth(auth),
                    .sdkVersion("0.2.0"),
                ])
            }
            let store = try DeviceStore(path: path)
            let restored = try store.readDeviceState()
            #expect(restored == expected)
            #expect(restored.extras.map(\.key) == ["z", "a"])
            try store.writeState([.trackingIntent(false), .sessionID(nil), .auth(nil)])
            let stopped = try store.readDeviceState()
            #expect(stopped.trackingIntent == false && stopped.sessionID == nil && stopped.auth == nil)
            #expect(stopped.config == config && stopped.sdkVersion == "0.2.0")
        }
    }

    @Test("the config given to many stores, then a different one, is read back from each as it was set")
    func configSetAcrossStores() throws {
        try withTemporaryDirectory { directory in
            let group = BeekonConfig(preset: .precision, sync: SyncConfig(url: "https://ingest.test/a", batchSize: 3))
            let other = BeekonConfig(preset: .balanced, sync: SyncConfig(url: "https://ingest.test/b", batchSize: 7))
            for (index, config) in [group, group, group, other, group].enumerated() {
                let store = try DeviceStore(path: directory.file("store-\(index).db"))
                try store.writeState([.config(config)])
                #expect(try store.readState(.config) == config)
            }
        }
    }
}
