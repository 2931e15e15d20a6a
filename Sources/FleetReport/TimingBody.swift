/// How an answer takes its time on the virtual clock now: the engine's resolution of
/// `TimingChoice` (`auto` is one of these at any instant), which says what upload latency means.
package enum TimingBody: String, APIEnum {
    /// 100 virtual ms plus injected latency, whatever the server's real time.
    case modelled
    /// The server's real time × the warp.
    case asAnswered = "as-answered"

    package init(deterministic: Bool) { self = deterministic ? .modelled : .asAnswered }
}
