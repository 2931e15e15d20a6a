/// How long an upload or token refresh takes on the virtual clock, as chosen (`run --timing`,
/// `clock.timing`); the engine resolves it into its `TransferTiming`.
public enum TimingChoice: String, Sendable, Hashable, CaseIterable {
    /// `as-answered` at warp 1, where real time is virtual time; `modelled` at every other warp
    /// (and whenever the warp leaves 1), so the same server gets the same verdict at any warp.
    case auto
    /// Every answer takes 100 virtual ms (plus injected latency), whatever the server's real time;
    /// virtual time waits for each real answer (`run --deterministic`).
    case modelled
    /// An answer takes its real time × the warp: what a phone would live through if the server
    /// were that much slower (at warp 60, a 500 ms answer is the SDK's 30 s timeout).
    case asAnswered = "as-answered"

    /// The words a reader takes, for messages.
    public static let words = allCases.map { "`\($0.rawValue)`" }.joined(separator: ", ")
}
