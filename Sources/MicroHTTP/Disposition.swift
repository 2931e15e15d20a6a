public import HTTPTypes

/// What to do with a request once the responder has decided.
public enum Disposition: Sendable {
    /// Answer, after `delayMillis` (the connection is suspended meanwhile, no thread waits).
    case reply(OutgoingReply, delayMillis: Int)
    /// Suspend the connection without answering; close it after `millis`.
    case hang(millis: Int)
    /// Close the connection without answering.
    case close
    /// Suspend the connection and call `start` with a handle that answers (or closes) it from any
    /// thread; `timeoutReply` goes out if neither comes within `timeoutMillis`. No thread waits.
    case later(timeoutMillis: Int, timeoutReply: OutgoingReply, start: @Sendable (PendingReply) -> Void)
    /// Answer 200 with `headers` and keep the connection open, sending what `stream` is given
    /// (Server-Sent Events and the like) until it or the client closes.
    case stream(headerFields: HTTPFields, EventStream)
}
