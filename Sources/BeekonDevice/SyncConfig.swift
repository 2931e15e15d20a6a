import HTTPMessage
import HTTPTypes

/// Where and how a device uploads (seed 05's `SyncConfig`).

public struct SyncConfig: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The ingest endpoint, used verbatim: Beekon adds no path.
    public var url: String
    /// Static headers on every POST; auth's `Authorization`, when set, wins over a static one.
    public var headers: StringMap
    /// Scheduled upload cadence, before the platform floors (iOS 60 s; Android 15 min in background).
    public var intervalSeconds: Int
    /// Pending-fix count that triggers an early upload of regular fixes; 0 disables it.
    public var syncThreshold: Int
    /// Declarative token refresh; nil when only static headers (or nothing) authenticate.
    public var auth: AuthConfig?
    /// `intervalSeconds`: up to a day (the platform floors of spec §5 still apply above 0).
    public static let intervalRange = NumberRange.integer(0...86_400, unit: "s")
    /// `batchSize`: what the SDK clamps to (spec §2), refused outside rather than clamped.
    public static let batchSizeRange = NumberRange.integer(1...1000, unit: "fixes")
    /// `syncThreshold`: 0 (upload on the interval only) to 100 000 pending fixes.
    public static let syncThresholdRange = NumberRange.integer(0...100_000, unit: "fixes")

    /// Most locations per POST, clamped to 1…1000.
    public var batchSize: Int {
        get { storedBatchSize }
        set { storedBatchSize = min(max(newValue, 1), 1000) }
    }

    private var storedBatchSize: Int

    private enum CodingKeys: String, CodingKey {
        case url, headers, intervalSeconds, syncThreshold, auth
        case storedBatchSize = "batchSize"
    }

    /// A sync configuration; every argument but `url` has the SDK's default.
    public init(
        url: String, headers: StringMap = [:], intervalSeconds: Int = 300, batchSize: Int = 100,
        syncThreshold: Int = 0, auth: AuthConfig? = nil
    ) {
        self.url = url
        self.headers = headers
        self.intervalSeconds = intervalSeconds
        self.storedBatchSize = min(max(batchSize, 1), 1000)
        self.syncThreshold = syncThreshold
        self.auth = auth
    }

    /// Everything but secrets: header values that may be credentials are redacted, and so are
    /// the auth recipe's tokens.
    public var description: String {
        let shownHeaders = headers.map {
            HTTPFields.field($0.key, $0.value)?.redacted ?? "\($0.key): <not a field name>"
        }
        return "SyncConfig(url: \(url), headers: \(shownHeaders), intervalSeconds: \(intervalSeconds), "
            + "batchSize: \(batchSize), syncThreshold: \(syncThreshold), "
            + "auth: \(auth.map { $0.description } ?? "nil"))"
    }
}
