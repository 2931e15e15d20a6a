import HTTPMessage
import HTTPTypes

/// What a device asks its runtime to do. The device never does I/O itself: it returns these,
/// in order, and the runtime carries them out (store, transport, timers, streams).
public enum DeviceAction: Sendable, Hashable {
    // Storage: committed before anything else sees the row (seed 04's non-crossing invariant).
    /// Store an admitted fix.
    case persistFix(Location, sessionID: String)
    /// Store a geofence crossing.
    case persistGeofenceEvent(GeofenceEvent, sessionID: String)
    /// Store these pieces of the device's persisted state, in one transaction.
    case persistState([DeviceStateChange])
    /// Delete stored fixes at or before an instant (all when nil).
    case deleteLocations(before: Int64?)

    // Streams the app would observe.
    /// A new tracking state.
    case emitState(TrackingState)
    /// A fix on the live stream.
    case emitLocation(Location)
    /// A geofence crossing on its stream.
    case emitGeofenceEvent(GeofenceEvent)
    /// Upload progress.
    case emitSyncStatus(SyncStatus)
    /// A change of the auth state.
    case emitAuthChange(AuthChange)

    // Sync.
    /// Ask the store for the next batch; the answer comes back as `batchLoaded`. With
    /// `resending`, what is left of that batch comes first, whatever it holds (the same batch
    /// again, under its id); then the session of the oldest pending row, up to `limit` fixes.
    case loadBatch(limit: Int, resending: SentBatch?)
    /// POST a batch (the runtime encodes and gzips the payload).
    case sendBatch(UploadRequest)
    /// POST a token refresh.
    case sendRefresh(RefreshRequest)
    /// The server has the batch: delete exactly its rows.
    case acknowledgeBatch(PendingBatch)
    /// The server rejected the batch for good: delete exactly its rows.
    case dropBatch(PendingBatch)

    // The OS and time.
    /// Start (with an accuracy) or stop (nil) the OS location provider.
    case requestLocationUpdates(AccuracyRequest?)
    /// Call back with `timerFired` at this instant (replacing any same timer).
    case armTimer(DeviceTimer, at: Int64)
    /// Forget a timer.
    case cancelTimer(DeviceTimer)
    /// Answer a `getCurrentLocation` call.
    case answerCurrentLocation(requestID: Int, CurrentLocationAnswer)
    /// An SDK call was refused; the error says why.
    case refuseCall(String, reason: String)
}

/// The timers a device arms; at most one of each is pending.
public enum DeviceTimer: Sendable, Hashable {
    /// The scheduled upload cadence.
    case syncInterval
    /// The retry of a failed upload after backoff.
    case uploadRetry
    /// The proactive token refresh at `expiresAt − skewMarginSeconds`.
    case proactiveRefresh
    /// The refresh circuit breaker closes again.
    case refreshBreaker
    /// A transient OS error is over.
    case osErrorRecovery
    /// The next `check_in` row while stationary.
    case checkIn
    /// A `getCurrentLocation` call times out.
    case currentLocationTimeout(requestID: Int)
}

/// The `syncStatus` stream's values (spec §6).
public enum SyncStatus: Sendable, Hashable {
    case idle
    case inFlight
    case succeeded(count: Int)
    case retrying(attempt: Int, nextAt: Int64)
    case failed(SyncFailure)
}

/// Why sync stopped trying by itself.
public enum SyncFailure: String, Sendable, Hashable {
    /// Authentication failed and cannot be fixed without `configure()` or `sync()`.
    case auth
    /// The server rejected a batch as permanently bad (it was dropped).
    case rejected
}

/// The `authChanges` stream's values. None carries a token.
public enum AuthChange: Sendable, Hashable {
    /// A seed from `configure()` was adopted.
    case seeded(expiresAt: Int64?)
    /// A refresh rotated the tokens.
    case refreshed(expiresAt: Int64?)
    /// The credentials are dead: no refresh until a new seed.
    case deadCredentials
    /// Refreshing is suspended after repeated failures, until this instant.
    case breakerOpened(until: Int64)
}

/// The answer to `getCurrentLocation`.
public enum CurrentLocationAnswer: Sendable, Hashable {
    /// The next OS fix, tagged `manual`.
    case fix(Location)
    /// No fix within the timeout.
    case timedOut
    /// A precondition fails: permission missing or location services off.
    case unavailable(PauseReason)
}

/// One upload POST: where, which headers, and the payload (encoded and gzipped by the runtime).
public struct UploadRequest: Sendable, Hashable, CustomStringConvertible {
    /// `POST` to the ingest URL (verbatim: `head.target`), with the SDK's headers: the content
    /// type and encoding, the static headers, then auth's `Authorization` (which replaces a
    /// static one).
    public var head: HTTPRequest
    /// The envelope.
    public var payload: UploadPayload

    /// A POST of `payload` to `url` with `headerFields`.
    public init(url: String, headerFields: HTTPFields, payload: UploadPayload) {
        head = HTTPRequest(method: .post, target: url, headerFields: headerFields)
        self.payload = payload
    }

    /// The SDK's upload timeout.
    public static let timeoutMillis: Int64 = 30_000

    /// The URL, the headers (secrets redacted) and the batch's size: never a token.
    public var description: String {
        "UploadRequest(url: \(head.target), headers: \(head.headerFields.redacted), batch_id: \(payload.batchID), "
            + "locations: \(payload.locations.count), geofence_events: \(payload.geofenceEvents.count))"
    }
}

/// One piece of the state a device persists with its store, so that it survives process death.
public enum DeviceStateChange: Sendable, Hashable {
    /// Made once per install, never changed.
    case installID(UUIDv7)
    /// Whether the app wants tracking (set by `start()`, cleared by `stop()`).
    case trackingIntent(Bool)
    /// The current session; nil clears it.
    case sessionID(String?)
    /// The configuration last given.
    case config(BeekonConfig)
    /// The app's extras.
    case extras(StringMap)
    /// The watched geofences.
    case geofences([Geofence])
    /// The live token set and the seed it came from (secrets: never logged); nil clears them.
    case auth(PersistedAuth?)
    /// The batch last given a `batch_id`, written before it is first sent.
    case sentBatch(SentBatch)
}

/// The auth state a device persists: the live tokens and the seed they grew from, so that a
/// new seed from `configure()` can be told apart from the one already adopted, and the
/// credentials' health, so that a relaunch neither revives dead credentials nor forgets the
/// breaker (seed 05: "rotated tokens survive process death"; a refresh endpoint that is failing
/// is not hammered again because the app was killed).
public struct PersistedAuth: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The live, rotated tokens.
    public var tokens: TokenSet
    /// The seed the tokens came from.
    public var seed: TokenSet
    /// Dead credentials and the refresh breaker.
    public var health: AuthHealth

    /// Persisted auth from its parts.
    public init(tokens: TokenSet, seed: TokenSet, health: AuthHealth = AuthHealth()) {
        self.tokens = tokens
        self.seed = seed
        self.health = health
    }

    /// Reads stores written before `health` was kept: their credentials count as healthy.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        tokens = try container.decode(TokenSet.self, forKey: .tokens)
        seed = try container.decode(TokenSet.self, forKey: .seed)
        health = try container.decodeIfPresent(AuthHealth.self, forKey: .health) ?? AuthHealth()
    }

    public var description: String { "PersistedAuth(tokens: \(tokens), seed: \(seed), health: \(health))" }
}

/// What a device knows about its credentials beyond the tokens (spec §7).
public struct AuthHealth: Sendable, Hashable, Codable {
    /// The token endpoint declared the credentials dead: no refresh until a new seed.
    public var deadCredentials = false
    /// Refreshes that failed in a row (the breaker opens at three).
    public var failedRefreshes = 0
    /// While set and in the future, no refresh is attempted (Unix ms).
    public var breakerOpenUntil: Int64?
    /// The server answered 401/403 to the live access token: it is never sent again (a new
    /// token replaces it; for a seed-only recipe, `sync()` is the app's word to try it again).
    public var tokenRejected = false

    /// Healthy: live credentials, no failure, the breaker closed.
    public init(
        deadCredentials: Bool = false, failedRefreshes: Int = 0, breakerOpenUntil: Int64? = nil,
        tokenRejected: Bool = false
    ) {
        self.deadCredentials = deadCredentials
        self.failedRefreshes = failedRefreshes
        self.breakerOpenUntil = breakerOpenUntil
        self.tokenRejected = tokenRejected
    }

    private enum CodingKeys: String, CodingKey {
        case deadCredentials, failedRefreshes, breakerOpenUntil, tokenRejected
    }

    /// Reads stores written before `tokenRejected` was kept: their token counts as not rejected.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        deadCredentials = try container.decode(Bool.self, forKey: .deadCredentials)
        failedRefreshes = try container.decode(Int.self, forKey: .failedRefreshes)
        breakerOpenUntil = try container.decodeIfPresent(Int64.self, forKey: .breakerOpenUntil)
        tokenRejected = try container.decodeIfPresent(Bool.self, forKey: .tokenRejected) ?? false
    }
}
