import BeekonDevice

/// A device's SDK configuration as JSON with every secret (header values, tokens, refresh
/// payload values) replaced by `[redacted]`: the admin API never shows credentials.
enum RedactedConfig {
    static let mask = "[redacted]"

    static func write(_ config: BeekonConfig, to json: inout JSONWriter) {
        json.beginObject()
        json.key("preset")
        json.string(config.preset.rawValue)
        json.key("minTimeBetweenLocationsSeconds")
        AdminJSON.optionalNumber(config.minTimeBetweenLocationsSeconds, to: &json)
        json.key("minDistanceBetweenLocationsMeters")
        AdminJSON.optionalNumber(config.minDistanceBetweenLocationsMeters, to: &json)
        json.key("whenStationary")
        json.string(config.whenStationary.rawValue)
        json.key("stationaryRadiusMeters")
        json.number(config.stationaryRadiusMeters)
        json.key("detectActivity")
        json.bool(config.detectActivity)
        json.key("sync")
        if let sync = config.sync {
            json.beginObject()
            json.key("url")
            json.string(sync.url)
            json.key("headers")
            masked(sync.headers, to: &json)
            json.key("intervalSeconds")
            json.integer(Int64(sync.intervalSeconds))
            json.key("batchSize")
            json.integer(Int64(sync.batchSize))
            json.key("syncThreshold")
            json.integer(Int64(sync.syncThreshold))
            json.key("auth")
            if let auth = sync.auth { write(auth, to: &json) } else { json.null() }
            json.endObject()
        } else {
            json.null()
        }
        json.endObject()
    }

    private static func write(_ auth: AuthConfig, to json: inout JSONWriter) {
        json.beginObject()
        json.key("accessToken")
        AdminJSON.optionalString(auth.accessToken.map { _ in mask }, to: &json)
        json.key("refreshToken")
        AdminJSON.optionalString(auth.refreshToken.map { _ in mask }, to: &json)
        json.key("expiresAt")
        AdminJSON.optionalNumber(auth.expiresAt, to: &json)
        json.key("strategy")
        json.string(auth.strategy.rawValue)
        json.key("refreshUrl")
        AdminJSON.optionalString(auth.refreshURL, to: &json)
        json.key("refreshPayload")
        masked(auth.refreshPayload, to: &json)
        json.key("refreshHeaders")
        masked(auth.refreshHeaders, to: &json)
        json.key("refreshBodyFormat")
        json.string(auth.refreshBodyFormat.rawValue)
        json.key("skewMarginSeconds")
        json.number(auth.skewMarginSeconds)
        json.endObject()
    }

    /// Keys as they are, every value masked.
    private static func masked(_ map: StringMap, to json: inout JSONWriter) {
        json.beginObject()
        for (key, _) in map {
            json.key(key)
            json.string(mask)
        }
        json.endObject()
    }
}
