import BeekonDevice
import FleetReport

/// A device's SDK configuration with every secret (header values, tokens, refresh payload and
/// header values) replaced by `[redacted]`: the admin API never shows credentials.
struct ConfigBody: APIBody {
    static let mask = "[redacted]"

    struct Sync: APIBody {
        var url: String
        var headers: APIMap<String>
        var intervalSeconds: Int
        var batchSize: Int
        var syncThreshold: Int
        var auth: Auth?

        static let example = Sync(
            url: "", headers: APIMap([]), intervalSeconds: 0, batchSize: 0, syncThreshold: 0, auth: .example)
    }

    struct Auth: APIBody {
        var accessToken: String?
        var refreshToken: String?
        var expiresAt: Double?
        var strategy: AuthStrategy
        var refreshUrl: String?
        var refreshPayload: APIMap<String>
        var refreshHeaders: APIMap<String>
        var refreshBodyFormat: AuthBodyFormat
        var skewMarginSeconds: Double

        init(_ auth: AuthConfig) {
            accessToken = auth.accessToken.map { _ in ConfigBody.mask }
            refreshToken = auth.refreshToken.map { _ in ConfigBody.mask }
            expiresAt = auth.expiresAt
            strategy = auth.strategy
            refreshUrl = auth.refreshURL
            refreshPayload = ConfigBody.masked(auth.refreshPayload)
            refreshHeaders = ConfigBody.masked(auth.refreshHeaders)
            refreshBodyFormat = auth.refreshBodyFormat
            skewMarginSeconds = auth.skewMarginSeconds
        }

        static let example = Auth(AuthConfig())
    }

    var preset: Preset
    var minTimeBetweenLocationsSeconds: Double?
    var minDistanceBetweenLocationsMeters: Double?
    var whenStationary: StationaryMode
    var stationaryRadiusMeters: Double
    var detectActivity: Bool
    var sync: Sync?

    init(_ config: BeekonConfig) {
        preset = config.preset
        minTimeBetweenLocationsSeconds = config.minTimeBetweenLocationsSeconds
        minDistanceBetweenLocationsMeters = config.minDistanceBetweenLocationsMeters
        whenStationary = config.whenStationary
        stationaryRadiusMeters = config.stationaryRadiusMeters
        detectActivity = config.detectActivity
        sync = config.sync.map { sync in
            Sync(
                url: sync.url, headers: Self.masked(sync.headers), intervalSeconds: sync.intervalSeconds,
                batchSize: sync.batchSize, syncThreshold: sync.syncThreshold, auth: sync.auth.map(Auth.init))
        }
    }

    /// Keys as they are, every value masked.
    static func masked(_ map: StringMap) -> APIMap<String> {
        APIMap(map.map { (key: $0.key, value: mask) })
    }

    static let example = ConfigBody(BeekonConfig())
}
