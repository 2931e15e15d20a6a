import HTTPMessage
import HTTPTypes

/// The sync planner and its auth session (seed 05, spec §6–7), as one state machine.

///
/// Every trigger feeds one drain: load the oldest session's next batch, POST it, and on 2xx
/// delete it and load the next, until nothing is pending or an upload fails. One upload is in
/// flight at most. Failures back off `interval × 2^min(n, 4)` (at most an hour, or longer when
/// `Retry-After` asks), and a retry re-sends the same rows under the same `batch_id` and
/// `sent_at`, after a process death too (`SentBatch`). A token the device knows to be bad
/// (expired, or answered 401/403) is never sent: the batch waits for a fresh one.
/// Offline it sends nothing, neither upload nor token refresh; a transfer the network's loss cut
/// off is no failure, and the network's return refreshes a token that fell due, then uploads.
/// In local-only mode (no sync config) it never asks for anything that touches the network.
public struct SyncEngine: Sendable, Hashable {
    /// Where the drain is.
    public enum Phase: Sendable, Hashable {
        /// Nothing is being uploaded.
        case idle
        /// The store was asked for the next batch.
        case loading
        /// A batch is out; its answer is awaited.
        case sending(HeldBatch)
        /// A token refresh must finish before the batch can go.
        case awaitingRefresh(HeldBatch)
        /// A failed batch waits for its retry time.
        case backingOff(HeldBatch, until: Int64)
        /// Offline: the drain resumes when the network comes back.
        case awaitingNetwork(HeldBatch?)
        /// Auth failed and cannot be fixed without `configure()` or `sync()`.
        case suspended(HeldBatch?)
    }

    /// A batch the engine is uploading, with the id and `sent_at` every attempt of it carries.
    public struct HeldBatch: Sendable, Hashable {
        /// The rows.
        public var batch: PendingBatch
        /// Fresh for the batch, reused by each retry.
        public var batchID: UUIDv7
        /// When the batch was assembled (its first loading), Unix ms: every attempt's `sent_at`.
        public var assembledAt: Int64
        /// The access token the last attempt carried (`AuthSession.tokenSerial`).
        public var tokenSerial = 0
        /// Whether this attempt already used its one reactive refresh.
        public var authRetried = false
        /// It failed for want of a valid token: a token adopted while it waits (a proactive
        /// refresh, the breaker's probe) sends it at once rather than at its retry time.
        public var awaitsToken = false
    }

    /// The emulated platform (interval floors).
    public let platform: Platform
    /// The sync configuration; nil is local-only mode.
    public private(set) var config: SyncConfig?
    /// The auth session.
    public private(set) var auth = AuthSession()
    /// The `device` object of every payload.
    public var identity: DeviceIdentity
    /// The app's extras, read at send time.
    public var extras: StringMap = [:]
    /// Whether the app is in the background (Android's 15-minute floor).
    public private(set) var inBackground = false
    /// Whether the device has a network.
    public private(set) var isOnline = true
    /// Consecutive failed uploads (the backoff exponent).
    public private(set) var failures = 0
    /// Stored fixes not yet acknowledged, as far as the engine knows.
    public private(set) var pendingFixes = 0
    /// Where the drain is.
    public private(set) var phase: Phase = .idle
    /// The batch last given a `batch_id` (persisted) while no answer settled it here (a 2xx, or
    /// its drop): the next load hands out what is left of it first, to go out under its id.
    public private(set) var unsettledBatch: SentBatch?

    /// An engine for a device on `platform`, in local-only mode until configured.
    public init(platform: Platform, identity: DeviceIdentity) {
        self.platform = platform
        self.identity = identity
    }

    /// Whether uploads are configured.
    public var isEnabled: Bool { config != nil }

    /// The scheduled cadence after the platform's floor.
    public var intervalMillis: Int64 {
        RetrySchedule.effectiveIntervalMillis(
            intervalSeconds: config?.intervalSeconds ?? 300, platform: platform,
            inBackground: inBackground)
    }

    // MARK: Configuration and world

    /// A new configuration: local-only (nil) cancels everything network; otherwise the interval
    /// is armed, auth adopts its seed, and a suspended drain resumes.
    public mutating func configure(
        _ sync: SyncConfig?, restoringAuth saved: PersistedAuth?, now: Int64
    ) -> [DeviceAction] {
        config = sync
        var actions = auth.configure(sync?.auth, restoring: saved, now: now)
        guard sync != nil else {
            phase = .idle
            failures = 0
            return actions + [.cancelTimer(.syncInterval), .cancelTimer(.uploadRetry), .emitSyncStatus(.idle)]
        }
        actions.append(.armTimer(.syncInterval, at: now + intervalMillis))
        switch phase {
        case .suspended(let held):
            actions += resume(held, now: now)
        case .awaitingRefresh(let held) where !auth.isRefreshing:
            // It waited for a token no refresh could get (the breaker open, or dead
            // credentials): a new configuration may have brought one.
            actions += resume(held, now: now)
        case .backingOff(let held, _) where !fits(held):
            // Seed 05 on a 413: "You must lower batchSize". The held batch is cut to the new
            // size and sent at once, as the app's fix; the SDK never shrinks it by itself.
            actions += [.cancelTimer(.uploadRetry)] + send(held, now: now)
        default:
            break
        }
        return actions
    }

    /// The batch persisted as last sent (at a launch): a retry of it after process death
    /// carries the same `batch_id`.
    public mutating func sentBatchRestored(_ sent: SentBatch?) {
        unsettledBatch = sent
    }

    /// The store's count of pending fixes (after a restore, or when the runtime corrects it).
    public mutating func pendingFixesCounted(_ count: Int) {
        pendingFixes = max(0, count)
    }

    /// The app went to the background or came to the foreground: the interval floor may change.
    public mutating func appStateChanged(background: Bool, now: Int64) -> [DeviceAction] {
        guard background != inBackground else { return [] }
        inBackground = background
        guard config != nil else { return [] }
        return [.armTimer(.syncInterval, at: now + intervalMillis)]
    }

    /// The network went down or came back. Coming back resets the failure count, refreshes a
    /// token that fell due meanwhile, and uploads at once.
    public mutating func networkChanged(online: Bool, now: Int64) -> [DeviceAction] {
        guard online != isOnline else { return [] }
        isOnline = online
        guard online, config != nil else { return [] }
        failures = 0
        // A proactive refresh (or the breaker's end) that came while offline sent nothing.
        var actions: [DeviceAction] = []
        if auth.wantsRefreshBeforeUpload(now: now) {
            actions = beginRefresh(now: now).actions
        }
        if case .awaitingNetwork(let held) = phase {
            phase = .idle
            if let held { return actions + send(held, now: now) }
        }
        return actions + drain(now: now, bypassingBackoff: true)
    }

    /// The process died: whatever was in flight is forgotten (the rows stay in the store).
    public mutating func processDied() {
        phase = .idle
        failures = 0
        auth = AuthSession()
        inBackground = false
        unsettledBatch = nil
    }

    // MARK: Triggers

    /// An admitted fix was stored: an early upload when `syncThreshold` fixes are pending.
    public mutating func fixPersisted(now: Int64) -> [DeviceAction] {
        pendingFixes += 1
        guard let config, config.syncThreshold >= 1, pendingFixes >= config.syncThreshold else {
            return []
        }
        return drain(now: now, bypassingBackoff: false)
    }

    /// A geofence event was stored: upload at once.
    public mutating func geofenceEventRecorded(now: Int64) -> [DeviceAction] {
        drain(now: now, bypassingBackoff: true)
    }

    /// A session stopped: flush the trip tail at once when fixes are pending.
    public mutating func sessionStopped(now: Int64) -> [DeviceAction] {
        guard pendingFixes > 0 else { return [] }
        return drain(now: now, bypassingBackoff: true)
    }

    /// `sync()`: upload at once (a no-op in local-only mode); also lifts an auth suspension.
    public mutating func syncCalled(now: Int64) -> [DeviceAction] {
        guard config != nil else { return [] }
        if case .suspended(let held) = phase {
            return auth.retryRejectedSeed() + resume(held, now: now)
        }
        return drain(now: now, bypassingBackoff: true)
    }

    /// Stored fixes were deleted by the app: a batch waiting for a retry is reloaded fresh, so
    /// deleted rows are never sent.
    public mutating func locationsDeleted(count: Int) {
        pendingFixes = max(0, pendingFixes - count)
        switch phase {
        case .backingOff, .awaitingRefresh, .awaitingNetwork(.some), .suspended(.some):
            // The next attempt reloads from the store; the row ids it sends are stable anyway.
            phase = Self.withoutBatch(phase)
        case .idle, .loading, .sending, .awaitingNetwork(nil), .suspended(nil):
            break
        }
    }

    /// Retention deleted pending fixes: `pendingUploadCount()` counts stored fixes (spec §6), so
    /// the count drops with them, and `syncThreshold` is weighed against what is stored. A batch
    /// out or held keeps its rows: their deletes by seq and id skip what is gone.
    public mutating func fixesExpired(count: Int) {
        pendingFixes = max(0, pendingFixes - count)
    }

    /// A device timer fired.
    public mutating func timerFired(_ timer: DeviceTimer, now: Int64) -> [DeviceAction] {
        switch timer {
        case .syncInterval:
            guard config != nil else { return [] }
            return [.armTimer(.syncInterval, at: now + intervalMillis)]
                + drain(now: now, bypassingBackoff: false)
        case .uploadRetry:
            guard case .backingOff(var held, _) = phase else { return [] }
            held.authRetried = false
            return send(held, now: now)
        case .proactiveRefresh:
            return beginRefresh(now: now).actions
        case .refreshBreaker:
            auth.breakerClosed()
            if auth.wantsRefreshBeforeUpload(now: now) {
                return beginRefresh(now: now).actions
            }
            return []
        case .osErrorRecovery, .checkIn, .currentLocationTimeout:
            return []
        }
    }

    // MARK: Answers

    /// The store's answer to `loadBatch`: send it, or end the drain when nothing is pending.
    public mutating func batchLoaded(
        _ batch: PendingBatch?, now: Int64, ids: inout UUIDv7Generator,
        using rng: inout some RandomNumberGenerator
    ) -> [DeviceAction] {
        guard case .loading = phase else { return [] }
        guard let batch, !batch.isEmpty, config != nil else {
            phase = .idle
            if batch == nil { pendingFixes = 0 }
            return [.emitSyncStatus(.idle)]
        }
        if let sent = unsettledBatch, sent.holds(batch) {
            // What is left of a batch sent before (a process death, rows deleted meanwhile).
            return send(HeldBatch(batch: batch, batchID: sent.batchID, assembledAt: sent.assembledAt), now: now)
        }
        let held = HeldBatch(batch: batch, batchID: ids.next(atUnixMillis: now, using: &rng), assembledAt: now)
        let sent = SentBatch(batchID: held.batchID, batch: batch, assembledAt: now)
        unsettledBatch = sent
        // Written before the batch first leaves, so no attempt of it goes out under another id
        // or with other rows (seed 05: "a retry carries the same batch_id"; spec §1: "A retry of
        // a batch reuses its `batch_id` and its rows' ids").
        return [.persistState([.sentBatch(sent)])] + send(held, now: now)
    }

    /// An upload's outcome, read with seed 05's status table. One the network's loss cut off
    /// (the engine offline) is no failure: the rows wait for the network, whose return sends
    /// them at once with the failure count reset (spec §6), so counting it could lengthen no wait.
    public mutating func uploadFinished(
        batchID: UUIDv7, outcome: HTTPOutcome, now: Int64
    ) -> [DeviceAction] {
        guard case .sending(var held) = phase, held.batchID == batchID else { return [] }
        if outcome == .failed(.offline), !isOnline {
            phase = .awaitingNetwork(held)
            return [.emitSyncStatus(.idle)]
        }
        let verdict: UploadVerdict
        switch outcome {
        case .response(let response, _): verdict = UploadVerdict(status: response.status.code)
        case .failed: verdict = .transient
        }
        switch verdict {
        case .accepted:
            failures = 0
            pendingFixes = max(0, pendingFixes - held.batch.locations.count)
            phase = .idle
            unsettledBatch = nil
            return [
                .acknowledgeBatch(held.batch, batchID: held.batchID),
                .emitSyncStatus(.succeeded(count: held.batch.locations.count)),
            ] + drain(now: now, bypassingBackoff: false)
        case .rejected:
            pendingFixes = max(0, pendingFixes - held.batch.locations.count)
            phase = .idle
            unsettledBatch = nil
            return [.dropBatch(held.batch, batchID: held.batchID), .emitSyncStatus(.failed(.rejected))]
                + drain(now: now, bypassingBackoff: false)
        case .auth:
            // The token it carried is never sent again (unless the app says so, seed-only).
            let refused = auth.uploadRefused(sentWith: held.tokenSerial)
            guard auth.recipe?.refreshURL != nil, !auth.isDead else {
                phase = .suspended(held)
                return refused.actions + [.emitSyncStatus(.failed(.auth))]
            }
            held.awaitsToken = true
            if !held.authRetried {
                held.authRetried = true
                if refused.rotated {
                    // A token adopted while the upload was out: the one retry goes with it.
                    return send(held, now: now)
                }
                let refresh = beginRefresh(now: now)
                if refresh.inFlight {
                    phase = .awaitingRefresh(held)
                    return refused.actions + refresh.actions
                }
            }
            return refused.actions + backOff(held, retryAfter: nil, now: now)
        case .transient, .permanent:
            var retryAfter: Int64?
            if let status = outcome.status, status == 429 || status == 503,
                let header = outcome.header(.retryAfter)
            {
                retryAfter = RetrySchedule.retryAfterMillis(header, now: now)
            }
            return backOff(held, retryAfter: retryAfter, now: now)
        }
    }

    /// A token refresh's outcome. One the network's loss cut off (the engine offline) is no
    /// failed refresh, as the token endpoint never failed: it goes again when the network
    /// returns, and the upload waiting for it after it. Heard while online, it is a network error.
    public mutating func refreshFinished(_ outcome: RefreshOutcome, now: Int64) -> [DeviceAction] {
        let outcome = outcome == .offline && isOnline ? .transient : outcome
        var actions = auth.refreshFinished(outcome, now: now)
        if case .adopted = outcome, case .backingOff(var held, _) = phase, held.awaitsToken {
            // A proactive refresh or the breaker's probe got the token this batch waited for:
            // seed 05, "2xx with a token: Adopt the new token set, retry the upload".
            held.authRetried = false
            return actions + [.cancelTimer(.uploadRetry)] + send(held, now: now)
        }
        guard case .awaitingRefresh(var held) = phase else { return actions }
        switch outcome {
        case .adopted:
            actions += send(held, now: now)
        case .offline:
            phase = .awaitingNetwork(held)
        case .transient:
            held.awaitsToken = true
            actions += backOff(held, retryAfter: nil, now: now)
        case .deadCredentials:
            phase = .suspended(held)
            actions.append(.emitSyncStatus(.failed(.auth)))
        }
        return actions
    }

    // MARK: The drain

    /// Starts a drain when idle. A trigger that bypasses backoff (`sync()`, a geofence event, a
    /// stop, network regained) also sends a waiting batch now; the interval and the threshold
    /// do not, so a failing server is not hammered.
    private mutating func drain(now: Int64, bypassingBackoff: Bool) -> [DeviceAction] {
        guard let config else { return [] }
        switch phase {
        case .idle:
            guard isOnline else {
                phase = .awaitingNetwork(nil)
                return []
            }
            phase = .loading
            return [.loadBatch(limit: config.batchSize, resending: unsettledBatch)]
        case .backingOff(var held, _):
            guard bypassingBackoff, isOnline else { return [] }
            held.authRetried = false
            return [.cancelTimer(.uploadRetry)] + send(held, now: now)
        case .loading, .sending, .awaitingRefresh, .awaitingNetwork, .suspended:
            // A drain is under way (it continues batch after batch) or waits for its condition.
            return []
        }
    }

    /// Sends `held`, after a refresh when the token is missing or about to expire.
    private mutating func send(_ held: HeldBatch, now: Int64) -> [DeviceAction] {
        guard let config else {
            phase = .idle
            return []
        }
        guard isOnline else {
            phase = .awaitingNetwork(held)
            return []
        }
        guard fits(held) else {
            // `configure()` lowered `batchSize` since it was loaded, the app's answer to a 413
            // (seed 05): reload it in chunks that fit, new batches with new ids.
            unsettledBatch = nil
            phase = .loading
            return [.loadBatch(limit: config.batchSize, resending: nil)]
        }
        if auth.isRefreshing || auth.wantsRefreshBeforeUpload(now: now) {
            let refresh = beginRefresh(now: now)
            if refresh.inFlight {
                phase = .awaitingRefresh(held)
                return refresh.actions
            }
        }
        if auth.lacksUsableToken(now: now) {
            // No token, an expired one or one the server refused, and no refresh possible now:
            // the upload would only earn a 401 (seed 05: "the upload backlog is kept across a
            // failed-auth window so nothing is lost"). Dead credentials and seed-only recipes
            // wait for `configure()` (or `sync()`); an open breaker for its probe, whose token
            // sends the batch (`refreshFinished`).
            if auth.isDead || auth.recipe?.refreshURL == nil {
                phase = .suspended(held)
                return [.emitSyncStatus(.failed(.auth))]
            }
            phase = .awaitingRefresh(held)
            return []
        }
        var headers: HTTPFields = [.contentType: "application/json", .contentEncoding: "gzip"]
        let authorization = auth.authorization
        for (name, value) in config.headers
        where authorization == nil || name.lowercased() != "authorization" {
            // A name that is no field name was refused where the config was read.
            if let field = HTTPFields.field(name, value) { headers.append(field) }
        }
        if let authorization { headers.append(authorization) }
        let payload = UploadPayload(
            batchID: held.batchID, sessionID: held.batch.sessionID, sentAt: held.assembledAt, device: identity,
            extras: extras, locations: held.batch.locations,
            geofenceEvents: held.batch.geofenceEvents)
        var held = held
        held.tokenSerial = auth.tokenSerial
        phase = .sending(held)
        return [
            .emitSyncStatus(.inFlight),
            .sendBatch(UploadRequest(url: config.url, headerFields: headers, payload: payload)),
        ]
    }

    /// Starts a token refresh (see `AuthSession.beginRefresh`), but never while offline: the
    /// network's return starts one that fell due meanwhile.
    private mutating func beginRefresh(now: Int64) -> (actions: [DeviceAction], inFlight: Bool) {
        guard isOnline else { return ([], false) }
        return auth.beginRefresh(now: now)
    }

    /// Keeps the rows and waits: `interval × 2^min(n, 4)`, or longer if `Retry-After` says so.
    private mutating func backOff(
        _ held: HeldBatch, retryAfter: Int64?, now: Int64
    ) -> [DeviceAction] {
        failures += 1
        let backoff = RetrySchedule.backoffMillis(intervalMillis: intervalMillis, failures: failures)
        let retryAt = now + RetrySchedule.retryDelayMillis(backoffMillis: backoff, retryAfterMillis: retryAfter)
        phase = .backingOff(held, until: retryAt)
        return [
            .emitSyncStatus(.retrying(attempt: failures, nextAt: retryAt)),
            .armTimer(.uploadRetry, at: retryAt),
        ]
    }

    /// Leaves an auth suspension: re-sends the held batch, or starts a drain.
    private mutating func resume(_ held: HeldBatch?, now: Int64) -> [DeviceAction] {
        phase = .idle
        guard var held else { return drain(now: now, bypassingBackoff: true) }
        held.authRetried = false
        return send(held, now: now)
    }

    /// Whether the batch is within the configured `batchSize`.
    private func fits(_ held: HeldBatch) -> Bool {
        held.batch.locations.count <= config?.batchSize ?? Int.max
    }

    private static func withoutBatch(_ phase: Phase) -> Phase {
        switch phase {
        case .suspended: .suspended(nil)
        case .awaitingNetwork: .awaitingNetwork(nil)
        default: .idle
        }
    }
}
