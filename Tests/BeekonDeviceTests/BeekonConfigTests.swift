import Foundation
import Testing

@testable import BeekonDevice

@Suite("Configuration values")
struct BeekonConfigTests {
    @Test("defaults are the SDK's: balanced, pause, 100 m, no activity, local-only")
    func defaults() {
        let config = BeekonConfig()
        #expect(config.preset == .balanced)
        #expect(config.whenStationary == .pause)
        #expect(config.stationaryRadiusMeters == 100)
        #expect(!config.detectActivity)
        #expect(config.isLocalOnly)
        let sync = SyncConfig(url: "https://api.example.com/locations")
        #expect(sync.intervalSeconds == 300)
        #expect(sync.batchSize == 100)
        #expect(sync.syncThreshold == 0)
        #expect(sync.headers.isEmpty)
        let auth = AuthConfig()
        #expect(auth.strategy == .bearer)
        #expect(auth.refreshBodyFormat == .form)
        #expect(auth.skewMarginSeconds == 60)
        #expect(auth.refreshHeaders == ["Authorization": "Bearer {accessToken}"])
    }

    @Test(
        "batchSize is clamped to 1…1000 and the stationary radius to 5…1000 m",
        arguments: [
            (0, 1, 1.0, 5.0), (-5, 1, -3, 5), (1, 1, 5, 5), (1000, 1000, 1000, 1000), (5000, 1000, 1e9, 1000),
        ] as [(Int, Int, Double, Double)])
    func clamping(batch: Int, expectedBatch: Int, radius: Double, expectedRadius: Double) {
        var sync = SyncConfig(url: "u", batchSize: batch)
        #expect(sync.batchSize == expectedBatch)
        sync.batchSize = batch
        #expect(sync.batchSize == expectedBatch)
        var config = BeekonConfig(stationaryRadiusMeters: radius)
        #expect(config.stationaryRadiusMeters == expectedRadius)
        config.stationaryRadiusMeters = radius
        #expect(config.stationaryRadiusMeters == expectedRadius)
    }

    @Test("a configuration survives a JSON round trip with the SDK's field names")
    func codable() throws {
        let config = BeekonConfig(
            preset: .precision, minTimeBetweenLocationsSeconds: 0, whenStationary: .pauseWithCheckIns,
            stationaryRadiusMeters: 50, detectActivity: true,
            sync: SyncConfig(
                url: "https://api.example.com/locations", headers: ["X-Api-Key": "k", "A": "b"],
                batchSize: 10, syncThreshold: 1,
                auth: AuthConfig(
                    accessToken: "a", refreshToken: "r", expiresAt: 1_781_526_896,
                    refreshURL: "https://auth.example.com/oauth/token",
                    refreshPayload: ["grant_type": "refresh_token", "refresh_token": "{refreshToken}"],
                    responseMapping: ResponseMapping(accessToken: "data.access_token"))))
        let data = try JSONEncoder().encode(config)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(#""batchSize":10"#))
        #expect(text.contains(#""stationaryRadiusMeters":50"#))
        #expect(try JSONDecoder().decode(BeekonConfig.self, from: data) == config)
    }

    @Test("tokens never appear in a description")
    func secretsRedacted() {
        let tokens = TokenSet(accessToken: "sekrit-access", refreshToken: "sekrit-refresh", expiresAt: 5)
        let auth = AuthConfig(accessToken: "sekrit-access", refreshToken: "sekrit-refresh")
        for text in [tokens.description, "\(tokens)", auth.description, "\(auth)", String(describing: auth)] {
            #expect(!text.contains("sekrit"))
        }
    }
}
