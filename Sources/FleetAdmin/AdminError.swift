/// Why the admin server could not start; the message says what to do.
public struct AdminError: Error, Sendable, CustomStringConvertible {
    /// What went wrong and what to do.
    public var message: String
    /// Whether the address could not be listened on (in use, not local), so another address may do;
    /// false when the configuration itself is refused (no token off loopback, a bad allowed host).
    public var cannotListen = false

    public var description: String { message }
}
