import HTTPTypes

/// The device's side of declarative auth (seed 05, spec §7): it adopts the `AuthConfig` seed

/// once, attaches the live token to uploads, refreshes proactively and reactively with one
/// refresh in flight at most, opens a circuit breaker after three failed refreshes, and stops
/// refreshing for good on dead credentials until a new seed arrives.
///
/// Returns `DeviceAction`s; never shows a token in a description.
public struct AuthSession: Sendable, Hashable {
    /// The recipe from the current configuration; nil when no `auth` block.
    public private(set) var recipe: AuthConfig?
    /// The live tokens, the seed they came from and the credentials' health: persisted whole
    /// whenever any of it changes, so a relaunch resumes exactly here.
    public private(set) var persisted: PersistedAuth?
    /// Whether a refresh request is out.
    public private(set) var isRefreshing = false
    /// Counts the access tokens this process adopted: an upload records the one it carried, so
    /// a 401 marks that token rejected, not one adopted while the upload was out.
    public private(set) var tokenSerial = 0

    /// A session with no recipe.
    public init() {}

    /// Whether the credentials are dead (no refresh until a new seed).
    public var isDead: Bool { persisted?.health.deadCredentials ?? false }
    /// Refreshes that failed in a row.
    public var consecutiveFailures: Int { persisted?.health.failedRefreshes ?? 0 }
    /// While set and in the future, no refresh is attempted.
    public var breakerOpenUntil: Int64? { persisted?.health.breakerOpenUntil }

    /// Takes the recipe from a new configuration, and the token set persisted from an earlier
    /// run. A seed different from the one adopted before is adopted anew (this is how dead
    /// credentials recover); the same seed keeps the rotated tokens and their health: dead
    /// credentials stay dead, and a breaker that was open stays open until its time.
    public mutating func configure(
        _ recipe: AuthConfig?, restoring saved: PersistedAuth?, now: Int64
    ) -> [DeviceAction] {
        self.recipe = recipe
        guard let recipe else {
            let hadTokens = persisted != nil || saved != nil
            persisted = nil
            var actions: [DeviceAction] = [.cancelTimer(.proactiveRefresh), .cancelTimer(.refreshBreaker)]
            if hadTokens { actions.append(.persistState([.auth(nil)])) }
            return actions
        }
        let seed = TokenSet(
            accessToken: recipe.accessToken, refreshToken: recipe.refreshToken,
            expiresAt: recipe.expiresAt.map { Int64(($0 * 1000).rounded()) })
        let current = persisted ?? saved
        if let current, current.seed == seed {
            persisted = current
            var actions: [DeviceAction] = []
            if let until = current.health.breakerOpenUntil {
                if until > now {
                    actions.append(.armTimer(.refreshBreaker, at: until))
                } else {
                    persisted?.health.breakerOpenUntil = nil
                }
            }
            return actions + proactiveTimer(now: now)
        }
        persisted = PersistedAuth(tokens: seed, seed: seed)
        tokenSerial += 1
        return [
            .persistState([.auth(persisted)]), .emitAuthChange(.seeded(expiresAt: seed.expiresAt)),
            .cancelTimer(.refreshBreaker),
        ] + proactiveTimer(now: now)
    }

    /// The `Authorization` header for uploads, when there is an access token.
    public var authorization: HTTPField? {
        guard let recipe, let token = persisted?.tokens.accessToken, !token.isEmpty else {
            return nil
        }
        switch recipe.strategy {
        case .bearer: return HTTPField(name: .authorization, value: "Bearer \(token)")
        case .raw: return HTTPField(name: .authorization, value: token)
        }
    }

    /// Whether uploads would go without the token they need: the recipe refreshes tokens (so the
    /// server expects one) but there is no access token yet.
    public var lacksToken: Bool {
        guard recipe?.refreshURL != nil else { return false }
        return persisted?.tokens.accessToken?.isEmpty ?? true
    }

    /// Whether the access token is one the device knows to be bad: past its `expiresAt`, or
    /// answered 401/403. Such a token is never sent; the batch waits for a fresh one.
    public func tokenIsKnownBad(now: Int64) -> Bool {
        guard recipe != nil, let persisted, !(persisted.tokens.accessToken?.isEmpty ?? true) else {
            return false
        }
        if persisted.health.tokenRejected { return true }
        guard let expiresAt = persisted.tokens.expiresAt else { return false }
        return now >= expiresAt
    }

    /// Whether an upload now would carry no usable token: none where the recipe refreshes them,
    /// or one known to be bad.
    public func lacksUsableToken(now: Int64) -> Bool {
        lacksToken || tokenIsKnownBad(now: now)
    }

    /// The server answered 401/403 to an upload that carried token number `serial`: if that is
    /// still the live token, it is marked rejected (persisted, so a relaunch does not send it).
    /// Returns the actions, and whether the live token is another one (adopted meanwhile).
    public mutating func uploadRefused(sentWith serial: Int) -> (actions: [DeviceAction], rotated: Bool) {
        guard recipe != nil, persisted != nil else { return ([], false) }
        guard serial == tokenSerial else { return ([], true) }
        guard persisted?.health.tokenRejected == false else { return ([], false) }
        persisted?.health.tokenRejected = true
        return ([.persistState([.auth(persisted)])], false)
    }

    /// `sync()` with a seed-only recipe: the app's word to try its token again (spec §6: a 401
    /// with no refresh URL pauses sync "until `configure()` or `sync()`").
    public mutating func retryRejectedSeed() -> [DeviceAction] {
        guard recipe != nil, recipe?.refreshURL == nil, persisted?.health.tokenRejected == true else { return [] }
        persisted?.health.tokenRejected = false
        return [.persistState([.auth(persisted)])]
    }

    /// Whether a refresh could be attempted at `now` (a refresh URL, live credentials, the
    /// breaker closed), in flight or not.
    public func canRefresh(now: Int64) -> Bool {
        guard recipe?.refreshURL != nil, !isDead else { return false }
        if let until = breakerOpenUntil, now < until { return false }
        return true
    }

    /// Whether the token should be refreshed before the next upload: it is missing, rejected,
    /// or within the skew margin of its expiry.
    public func wantsRefreshBeforeUpload(now: Int64) -> Bool {
        guard canRefresh(now: now), let persisted else { return false }
        let tokens = persisted.tokens
        if tokens.accessToken?.isEmpty ?? true || persisted.health.tokenRejected { return true }
        guard let refreshAt = refreshInstant else { return false }
        return now >= refreshAt
    }

    /// `expiresAt − skewMarginSeconds`, when an expiry is known.
    public var refreshInstant: Int64? {
        guard let recipe, let expiresAt = persisted?.tokens.expiresAt else { return nil }
        return expiresAt - Int64((recipe.skewMarginSeconds * 1000).rounded())
    }

    /// Starts a refresh unless one is out already (single flight) or none is possible.
    /// Returns the actions, and whether a refresh is now in flight.
    public mutating func beginRefresh(now: Int64) -> (actions: [DeviceAction], inFlight: Bool) {
        if isRefreshing { return ([], true) }
        guard canRefresh(now: now), let recipe, let persisted,
            let request = RefreshRequest(recipe: recipe, tokens: persisted.tokens)
        else { return ([], false) }
        isRefreshing = true
        return ([.cancelTimer(.proactiveRefresh), .sendRefresh(request)], true)
    }

    /// Reads a refresh answer: adopts, counts a failure (opening the breaker at three), marks
    /// the credentials dead, or, cut off by the network's loss, counts nothing. Each change of
    /// health is persisted with the tokens.
    public mutating func refreshFinished(_ outcome: RefreshOutcome, now: Int64) -> [DeviceAction] {
        isRefreshing = false
        switch outcome {
        case .adopted(let tokens):
            persisted = PersistedAuth(tokens: tokens, seed: persisted?.seed ?? tokens)
            tokenSerial += 1
            return [
                .persistState([.auth(persisted)]),
                .emitAuthChange(.refreshed(expiresAt: tokens.expiresAt)),
            ] + proactiveTimer(now: now)
        case .transient:
            guard persisted != nil else { return [] }
            persisted?.health.failedRefreshes += 1
            guard let pause = RetrySchedule.breakerMillis(failures: consecutiveFailures) else {
                // A failed reactive refresh leaves the proactive one standing at its own time
                // (only one still ahead: a past one would refresh again at once).
                let proactive = refreshInstant.map { $0 > now } == true ? proactiveTimer(now: now) : []
                return [.persistState([.auth(persisted)])] + proactive
            }
            let until = now + pause
            persisted?.health.breakerOpenUntil = until
            return [
                .persistState([.auth(persisted)]), .emitAuthChange(.breakerOpened(until: until)),
                .armTimer(.refreshBreaker, at: until),
            ]
        case .deadCredentials:
            guard persisted != nil else { return [] }
            persisted?.health.deadCredentials = true
            return [
                .persistState([.auth(persisted)]), .cancelTimer(.proactiveRefresh),
                .emitAuthChange(.deadCredentials),
            ]
        case .offline:
            return []
        }
    }

    /// The breaker's time is up: refreshing may be tried again. Not persisted: a relaunch
    /// reads a breaker whose time has passed as closed.
    public mutating func breakerClosed() {
        persisted?.health.breakerOpenUntil = nil
    }

    /// The proactive refresh timer, armed at `expiresAt − skew` (or now, if that has passed).
    private func proactiveTimer(now: Int64) -> [DeviceAction] {
        guard recipe?.refreshURL != nil, !isDead, let refreshAt = refreshInstant else {
            return [.cancelTimer(.proactiveRefresh)]
        }
        return [.armTimer(.proactiveRefresh, at: max(refreshAt, now))]
    }
}
