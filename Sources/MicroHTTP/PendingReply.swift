public import HTTPTypes

/// The answer to a request the daemon holds suspended (`Disposition.later`); the first
/// `send` or `close` wins, later ones (and the timeout after either) do nothing.
public struct PendingReply: Sendable {
    let core: MicroHTTPDaemon.Core
    let connection: Int
    let generation: UInt64

    /// Answers the request and hands the connection back to the daemon.
    public func send(_ reply: OutgoingReply) {
        core.answer(connection, generation: generation, with: reply)
    }

    /// Closes the connection without answering, as a server that crashed or dropped it would.
    public func close() {
        // Resumed with no answer waiting, the request's last call refuses it and MHD closes.
        core.resume(connection, generation: generation)
    }
}
