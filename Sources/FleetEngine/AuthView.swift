/// A device's auth session, as far as it may be shown: state and instants, never a token.
public struct AuthView: Sendable, Hashable {
    /// The session's state.
    public enum State: String, Sendable, Hashable, CaseIterable {
        /// No declarative auth configured.
        case none
        case valid, refreshing, expired
        /// Dead credentials: no refresh until a new seed.
        case failed
    }

    public var state: State
    /// The access token's expiry, virtual Unix ms.
    public var validUntil: Int64?
    /// The last refresh's outcome (`200`, `timeout`, `offline`).
    public var lastRefreshOutcome: TransferOutcome?
    /// No refresh is tried before this, virtual Unix ms.
    public var breakerOpenUntil: Int64?

    /// The view as it stands at `now`: a valid token past its expiry is expired, and a breaker
    /// whose time is over is closed. (The loop rewrites a device's view only when something
    /// happens to it; the clock alone changes these two.)
    func seen(at now: Int64) -> AuthView {
        var view = self
        if view.state == .valid, let until = view.validUntil, until <= now { view.state = .expired }
        if let until = view.breakerOpenUntil, until <= now { view.breakerOpenUntil = nil }
        return view
    }
}
